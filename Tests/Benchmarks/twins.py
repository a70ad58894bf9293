#!/usr/bin/env python3
"""What the runner adds to an experiment, measured against the same code in bare Foundation.

    python3 Tests/Benchmarks/twins.py [--scale S] [--rounds N] [--configuration debug|release] [SHAPE ...]

For each shape (an experiment, and its twin in Tests/Benchmarks/BareTwins/main.swift: the same
queue, operations and sleeps in a program that imports Foundation only), each round runs the twin
and then the experiment (`run-experiments NAME --format json`), one after the other, so both see
the same machine. The overshoot of each is its measured total less the experiment's predicted
total; the table gives their medians and the runner's cost per operation:
(median overshoot under the runner - median overshoot bare) / the experiment's operations, and
the same from the fastest runs of each (a busy machine only ever adds time, so the fastest run
is the closest to what each costs; the test of this cost reads that one).
With --json, one JSON object instead of the table (the test reads it).
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

SHAPES = ["serial-queue", "concurrent-printer-queue", "dependent-thread-reuse", "cancellation-at-2s"]
ROOT = Path(__file__).resolve().parents[2]


def build(configuration):
    for product in ("run-experiments", "bare-twins"):
        subprocess.run(["swift", "build", "-c", configuration, "--product", product],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    path = subprocess.run(["swift", "build", "-c", configuration, "--show-bin-path"],
                          cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    return Path(path)


def bare(binaries, shape, scale):
    out = subprocess.run([binaries / "bare-twins", shape, repr(scale)], check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1].split()[1])


def under_runner(binaries, shape, scale):
    out = subprocess.run([binaries / "run-experiments", shape, "--time-scale", repr(scale), "--format", "json"],
                         capture_output=True, text=True).stdout
    experiment = json.loads(out)["experiments"][0]
    return experiment["measuredSeconds"], experiment["expected"]["seconds"], len(experiment["expected"]["operations"])


def measure(binaries, shapes, scale, rounds):
    results = {}
    for shape in shapes:
        results[shape] = {"bare": [], "runner": [], "predicted": None, "operations": None}
    for _ in range(rounds):
        for shape in shapes:
            results[shape]["bare"].append(bare(binaries, shape, scale))
            measured, predicted, operations = under_runner(binaries, shape, scale)
            results[shape]["runner"].append(measured)
            results[shape]["predicted"], results[shape]["operations"] = predicted, operations
    report = {}
    for shape, r in results.items():
        bare_over = statistics.median(r["bare"]) - r["predicted"]
        runner_over = statistics.median(r["runner"]) - r["predicted"]
        report[shape] = {
            "predictedSeconds": r["predicted"],
            "operations": r["operations"],
            "bareOvershootSeconds": round(bare_over, 6),
            "runnerOvershootSeconds": round(runner_over, 6),
            "runnerCostPerOperationSeconds": round((runner_over - bare_over) / r["operations"], 6),
            "fastestRunnerCostPerOperationSeconds": round((min(r["runner"]) - min(r["bare"])) / r["operations"], 6),
        }
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", metavar="SHAPE", help=f"one of {', '.join(SHAPES)} (default: all)")
    parser.add_argument("--scale", type=float, default=0.25)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--configuration", default="debug", choices=["debug", "release"])
    parser.add_argument("--binaries", type=Path, help="a bin path already built (skips the build)")
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    unknown = [shape for shape in arguments.shapes if shape not in SHAPES]
    if unknown:
        parser.error(f"no twin for {', '.join(unknown)}; the shapes are {', '.join(SHAPES)}")
    arguments.shapes = arguments.shapes or SHAPES
    binaries = arguments.binaries or build(arguments.configuration)
    report = measure(binaries, arguments.shapes, arguments.scale, arguments.rounds)
    if arguments.json:
        json.dump(report, sys.stdout)
        print()
        return
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"scale {arguments.scale}, {arguments.rounds} rounds, {arguments.configuration} build, load average {' '.join(load)}")
    header = f"{'shape':<26} {'ops':>3} {'predicted':>10} {'bare +':>9} {'runner +':>9} {'per op':>9} {'fastest':>9}"
    print(header)
    print("-" * len(header))
    for shape, r in report.items():
        print(f"{shape:<26} {r['operations']:>3} {r['predictedSeconds']:>9.3f}s"
              f" {r['bareOvershootSeconds'] * 1000:>7.2f}ms {r['runnerOvershootSeconds'] * 1000:>7.2f}ms"
              f" {r['runnerCostPerOperationSeconds'] * 1000:>7.3f}ms {r['fastestRunnerCostPerOperationSeconds'] * 1000:>7.3f}ms")


if __name__ == "__main__":
    main()
