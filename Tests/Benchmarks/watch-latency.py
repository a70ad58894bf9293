#!/usr/bin/env python3
"""From a save to its result on screen under `run-experiments watch`, measured.

    python3 Tests/Benchmarks/watch-latency.py PACKAGE [--name my-queue] [--scale 0.1] [--rounds 10]

PACKAGE is a package folder (the checkout, or a copy of it) where `run-experiments new NAME` has
written the learner's experiment and `swift build --product run-experiments` has built it. The
script starts `watch NAME` there, waits for its first round, then saves the experiment's file
ROUNDS times, each time with one closure more or less (the printed word and the prediction
change), as an editor saves it (written whole, in place), and times from the write's return to
the round's verdict line on watch's stdout and to its end (the report folder written). It prints
each round and the medians, then ends watch with SIGINT and checks it exits 130.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("package", type=Path)
    parser.add_argument("--name", default="my-queue")
    parser.add_argument("--scale", default="0.1")
    parser.add_argument("--rounds", type=int, default=10)
    options = parser.parse_args()
    # Absolute: watch is started in the package's folder, where a relative path would not lead.
    options.package = options.package.resolve()
    type_name = "".join(word.capitalize() for word in options.name.split("-"))
    source = options.package / "Experiments" / "Playground" / f"{type_name}.swift"
    original = source.read_text()
    anchor = re.search(r"^ *(\w+)\.addOperation \{ print\(.*\n", original, re.M)
    if anchor is None:
        sys.exit(f"{source} has no line 'queue.addOperation {{ print(…) … }}' to add a closure after")
    watch = subprocess.Popen(
        [str(options.package / ".build/debug/run-experiments"), "watch", options.name, "--time-scale", options.scale],
        cwd=options.package, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def until(word):
        for line in watch.stdout:
            if word in line:
                return time.monotonic()
        sys.exit("watch ended before " + word)

    verdicts, rounds = [], []
    try:
        until("Watching ")
        for number in range(1, options.rounds + 1):
            added = f'    {anchor.group(1)}.addOperation {{ print("Знать {number}"); sleep(1) }}\n' if number % 2 else ""
            source.write_text(original[:anchor.end()] + added + original[anchor.end():])
            saved = time.monotonic()
            verdict = until("Verdict")
            ended = until("Watching ")
            verdicts.append(verdict - saved)
            rounds.append(ended - saved)
            print(f"save {number:2}: verdict on screen {verdicts[-1]:.2f} s, round ended {rounds[-1]:.2f} s")
            time.sleep(0.5)
    finally:
        source.write_text(original)
        watch.send_signal(signal.SIGINT)
        status = watch.wait(timeout=10)
    print(f"median of {len(verdicts)}: verdict on screen {statistics.median(verdicts):.2f} s "
          f"(min {min(verdicts):.2f}, max {max(verdicts):.2f}); round ended {statistics.median(rounds):.2f} s; "
          f"load average {os.getloadavg()[0]:.2f}; SIGINT exit status {status if status >= 0 else 128 - status}")


if __name__ == "__main__":
    main()
