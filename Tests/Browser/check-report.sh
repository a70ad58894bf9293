#!/usr/bin/env bash
# Renders a report page in headless Chromium and fails if the page logs a console error, throws,
# fails to load a local file it references, or lacks a part of the report's structure (see
# README.md in this folder).
#
#   bash Tests/Browser/check-report.sh [path/to/index.html]   # default: Reports/reference/index.html
#   bash Tests/Browser/check-report.sh --self-test            # the checker against pages it writes
#
# Exit status: 0 when the page passes (one "ok" line on stdout) or when no Chromium is installed
# (one "skipped" line on stdout, so that CI without it stays green); 1 when the page fails, with
# what is wrong on stderr; 2 on a usage error.
#
# How: the page is copied to a temporary folder with check-report.js injected at the very start
# of its <head> (so its hooks are in place before anything else runs), behind a <base href> to the
# page's own folder, so that its relative timelines/ and images/ still resolve without writing
# anything into the report folder. Chromium renders the copy with --dump-dom; the checker writes
# its verdict into an element whose id carries a random nonce, and this script reads it from the
# dump. No verdict (the checker did not run to its end, the page never finished loading, Chromium
# failed) is a failure, never a pass.
#
# Needs bash, coreutils and awk; Chromium (Debian: apt-get install chromium) or $CHROMIUM.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
checker="$here/check-report.js"
# Virtual time the page may run for: Chromium advances timers without waiting, so this costs
# nothing on a quiet page and bounds one that keeps scheduling work.
budget_ms=5000
# Wall-clock cap per page, for a page that never yields (a script in an endless loop).
timeout_s=${CHECK_REPORT_TIMEOUT:-30}
work=''
chromium=''

say() { printf 'check-report: %s\n' "$*" >&2; }

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

find_chromium() {
    local name
    for name in ${CHROMIUM:+"$CHROMIUM"} chromium chromium-browser google-chrome-stable google-chrome; do
        if command -v "$name" >/dev/null 2>&1; then
            command -v "$name"
            return 0
        fi
    done
    return 1
}

cleanup() {
    if [[ -n $work ]]; then rm -rf "$work"; fi
}

# A file:// URL for an absolute path: every byte outside the unreserved set percent-encoded, so
# that a folder with spaces, '#' or '%' in its name still works in <base href> and on the command line.
file_url() {
    local path=$1 url='file://' char i
    local LC_ALL=C
    for ((i = 0; i < ${#path}; i++)); do
        char=${path:i:1}
        case $char in
            [A-Za-z0-9/._~-]) url+=$char ;;
            *) printf -v char '%%%02X' "'$char"; url+=$char ;;
        esac
    done
    printf '%s\n' "$url"
}

# A string as a JavaScript string literal's contents (the page's name goes into the injection).
js_string() {
    local text=$1
    text=${text//\\/\\\\}
    text=${text//\"/\\\"}
    text=${text//</\\u003c}
    printf '%s' "$text"
}

# What goes at the start of <head>: the <base>, then the checker with its settings. lineOffset is
# how many lines it adds, so that the checker can give errors the page's own line numbers.
write_injection() {
    local page=$1 nonce=$2 out=$3 folder
    folder=$(cd "$(dirname "$page")" && pwd) || return 1
    local js_lines
    js_lines=$(wc -l <"$checker")
    {
        printf '<base data-check-report href="%s/"><script data-check-report>\n' "$(file_url "$folder")"
        printf 'window.__checkReport = { nonce: "%s", page: "%s", lineOffset: %d };\n' \
            "$nonce" "$(js_string "$(basename "$page")")" $((js_lines + 2))
        cat "$checker"
        printf '</script>'
    } >"$out"
}

# The page with the injection right after its <head…> tag, on the same line as the tag.
inject() {
    local page=$1 injection=$2 out=$3
    awk -v injection="$injection" '
        BEGIN {
            text = ""
            while ((getline line < injection) > 0) text = text (text == "" ? "" : "\n") line
        }
        !done && match(tolower($0), /<head([ \t][^>]*)?>/) {
            cut = RSTART + RLENGTH - 1
            $0 = substr($0, 1, cut) text substr($0, cut + 1)
            done = 1
        }
        { print }
        END { if (!done) exit 3 }
    ' "$page" >"$out"
}

# Renders URL into SCRATCH/dom.html (Chromium's log in SCRATCH/chromium.log), with a profile and
# XDG folders of its own in SCRATCH: nothing kept between runs, nothing written to ~/.config (the
# crash database ignores --user-data-dir).
render() {
    local url=$1 scratch=$2
    # --host-resolver-rules: nothing can come from the network even where there is one, so a page
    # that needs it fails here and not only offline. The rest keeps Chromium from reaching out.
    XDG_CONFIG_HOME="$scratch/xdg-config" XDG_CACHE_HOME="$scratch/xdg-cache" \
        timeout -k 5 "$timeout_s" "$chromium" --headless --disable-gpu --no-sandbox \
        --user-data-dir="$scratch/profile" --no-first-run --no-default-browser-check \
        --disable-extensions --disable-sync --disable-background-networking \
        --disable-component-update --disable-breakpad \
        --host-resolver-rules='MAP * ~NOTFOUND' \
        --enable-logging=stderr --v=0 \
        --virtual-time-budget="$budget_ms" --dump-dom "$url" >"$scratch/dom.html" 2>"$scratch/chromium.log"
}

# The text of <pre id="check-result-NONCE"> in the dump, its entities decoded (it is text only).
read_verdict() {
    local dom=$1 nonce=$2
    awk -v open="<pre id=\"check-result-$nonce\">" '
        !on { i = index($0, open); if (!i) next; $0 = substr($0, i + length(open)); on = 1 }
        on { j = index($0, "</pre>"); if (j) { print substr($0, 1, j - 1); exit } print }
    ' "$dom" | sed -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&nbsp;/ /g' -e 's/&quot;/"/g' -e 's/&amp;/\&/g'
}

# Why there is no verdict: Chromium's status and what the page logged (its console lines), or
# the end of Chromium's own log when the page logged nothing.
explain_missing_verdict() {
    local status=$1 log=$2 consoles
    if ((status == 124 || status == 137)); then
        say "  Chromium did not finish within ${timeout_s} s (CHECK_REPORT_TIMEOUT): a script that never yields?"
    elif ((status != 0)); then
        say "  Chromium exited with status $status"
    else
        say "  the page did not finish loading within ${budget_ms} ms of virtual time, or something removed the verdict"
    fi
    consoles=$(grep -F ':CONSOLE' "$log" | sed 's/^\[[^]]*\] */    /' | head -n 10 || true)
    if [[ -n $consoles ]]; then
        say "  the page's console:"
        printf '%s\n' "$consoles" >&2
    else
        say "  the end of Chromium's log:"
        grep -v -e 'dbus' -e 'unexpected operator' "$log" | tail -n 5 | sed 's/^/    /' >&2 || true
    fi
}

# Checks one page; 0 if it passes. Written with explicit returns: it runs inside `if` and `||`
# in the self-test, where `set -e` does not apply.
check_page() {
    local page=$1
    if [[ ! -f $page ]]; then
        say "FAIL: no such page: $page"
        return 1
    fi
    local nonce scratch status=0
    nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n') || return 1
    scratch=$(mktemp -d "$work/page.XXXXXX") || return 1
    write_injection "$page" "$nonce" "$scratch/injection.html" || return 1
    if ! inject "$page" "$scratch/injection.html" "$scratch/index.html"; then
        say "FAIL $page: no <head> tag to put the checker in"
        return 1
    fi

    render "$(file_url "$scratch/index.html")" "$scratch" || status=$?

    local verdict
    verdict=$(read_verdict "$scratch/dom.html" "$nonce")
    if [[ -z $verdict ]]; then
        say "FAIL $page: no verdict in the rendered page: the checker did not run to its end"
        explain_missing_verdict "$status" "$scratch/chromium.log"
        return 1
    fi
    report_verdict "$page" "$nonce" "$verdict"
}

# The verdict's first line is "check-report NONCE ok|fail sections=N console=N structure=N
# checker=N"; each further line is "KIND<tab>what is wrong: where".
report_verdict() {
    local page=$1 nonce=$2 verdict=$3
    local tag seen result sections consoles structures checkers
    read -r tag seen result sections consoles structures checkers <<<"${verdict%%$'\n'*}"
    if [[ $tag != check-report || $seen != "$nonce" ]]; then
        say "FAIL $page: the verdict in the rendered page is not this run's (nonce $seen, expected $nonce)"
        return 1
    fi
    if [[ $result == ok ]]; then
        printf 'ok: %s: %s sections, no console errors or failed loads, structure as specified\n' \
            "$page" "${sections#sections=}"
        return 0
    fi
    local checker_note=''
    if [[ $checkers != checker=0 ]]; then checker_note=", ${checkers#checker=} errors of the checker itself"; fi
    say "FAIL $page: ${consoles#console=} console errors or failed loads," \
        "${structures#structure=} structure problems$checker_note (${sections#sections=} sections)"
    local kind what
    while IFS=$'\t' read -r kind what; do
        say "  $kind: $what"
    done < <(tail -n +2 <<<"$verdict")
    return 1
}

# --- self-test ------------------------------------------------------------------------------

# A page as the report is specified: one experiment with its code, printed lines linking to it,
# an inline timeline whose bars know their lines and the highlight script; one whose code cannot
# be shown. The broken pages are this one with one thing changed.
sample_page() {
    cat <<'HTML'
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>self-test report</title>
<style>.lit { background: #fff8c5; fill: #bf8700; }</style>
</head>
<body>
<h1>self-test report</h1>
<ul><li><a href="#concurrent-printer-queue">concurrent-printer-queue</a></li><li><a href="#sum-operation">sum-operation</a></li></ul>
<section id="concurrent-printer-queue">
<h2>concurrent-printer-queue</h2>
<div class="code">
<details class="listing" open><summary>Printer.swift</summary>
<table class="listing">
<tr class="line" id="concurrent-printer-queue:Printer.swift:7" data-site="Printer.swift:7" tabindex="0"><td class="number">7</td><td class="source"><code>queue.addOperation { print("a") }</code></td><td class="results">0.00 s</td></tr>
<tr class="line" id="concurrent-printer-queue:Printer.swift:8" data-site="Printer.swift:8" tabindex="0"><td class="number">8</td><td class="source"><code>queue.addOperation { print("b") }</code></td><td class="results"></td></tr>
</table>
</details>
<details class="listing"><summary>Support.swift</summary>
<table class="listing">
<tr class="line" id="concurrent-printer-queue:Support.swift:3" data-site="Support.swift:3" tabindex="0"><td class="number">3</td><td class="source"><code>func settle() {}</code></td><td class="results"></td></tr>
</table>
</details>
</div>
<pre class="printed">a <a class="site" href="#concurrent-printer-queue:Printer.swift:7">Printer.swift:7</a>
b <a class="site" href="#concurrent-printer-queue:Printer.swift:8">Printer.swift:8</a>
</pre>
<figure class="timeline"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 20" width="300" height="60"><rect data-site="Printer.swift:7" x="0" y="0" width="50" height="8"/><rect data-site="Printer.swift:8" x="0" y="10" width="60" height="8"/></svg></figure>
<figure><img src="images/present.svg" alt="a local image that exists"></figure>
</section>
<section id="sum-operation">
<h2>sum-operation</h2>
<p class="code-missing">Its source is generated at run time: there is no file to show.</p>
<pre class="printed">3</pre>
<figure class="timeline"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 20"><rect x="0" y="0" width="10" height="8"/></svg></figure>
</section>
<script>
// Lights every element of a code line's data-site in its section while the line is hovered or focused.
(function () {
    function light(event, on) {
        var row = event.target.closest && event.target.closest('tr.line');
        if (!row) return;
        var section = row.closest('body > section'), site = row.getAttribute('data-site');
        section.querySelectorAll('[data-site]').forEach(function (element) {
            if (element.getAttribute('data-site') === site) element.classList.toggle('lit', on);
        });
    }
    document.addEventListener('mouseover', function (event) { light(event, true); });
    document.addEventListener('mouseout', function (event) { light(event, false); });
    document.addEventListener('focusin', function (event) { light(event, true); });
    document.addEventListener('focusout', function (event) { light(event, false); });
})();
</script>
<!--END-->
</body>
</html>
HTML
}

self_test_failures=0
self_test_broken=0

# The page with its first FROM replaced by TO; fails (rather than test the good page twice) if
# FROM is not in it.
changed() {
    local html=$1 from=$2 to=$3
    if [[ $html != *"$from"* ]]; then
        echo "self-test: the sample page has no \"$from\" to change" >&2
        return 1
    fi
    printf '%s\n' "${html/"$from"/"$to"}"
}

# The page must be rejected, and for the expected reason, said on stderr.
expect_rejected() {
    local name=$1 expected=$2 html=$3 file output
    self_test_broken=$((self_test_broken + 1))
    file="$work/self-test/$name.html"
    printf '%s\n' "$html" >"$file"
    if output=$(check_page "$file" 2>&1 >/dev/null); then
        echo "self-test: NOT REJECTED: $name (expected: $expected)" >&2
        self_test_failures=$((self_test_failures + 1))
    elif [[ $output != *"$expected"* ]]; then
        echo "self-test: REJECTED FOR ANOTHER REASON: $name (expected: $expected); the checker said:" >&2
        printf '%s\n' "$output" | sed 's/^/    /' >&2
        self_test_failures=$((self_test_failures + 1))
    else
        echo "self-test: rejected $name: $(grep -F -m 1 -- "$expected" <<<"$output" | sed 's/^check-report: *//')"
    fi
}

expect_accepted() {
    local name=$1 html=$2 file output
    file="$work/self-test/$name.html"
    printf '%s\n' "$html" >"$file"
    if output=$(check_page "$file" 2>&1); then
        echo "self-test: accepted $name"
    else
        echo "self-test: NOT ACCEPTED: $name; the checker said:" >&2
        printf '%s\n' "$output" | sed 's/^/    /' >&2
        self_test_failures=$((self_test_failures + 1))
    fi
}

self_test() {
    mkdir -p "$work/self-test/images"
    printf '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>\n' \
        >"$work/self-test/images/present.svg"
    local good end='<!--END-->'
    good=$(sample_page)
    local link8='href="#concurrent-printer-queue:Printer.swift:8">Printer.swift:8<'

    expect_accepted good "$good"
    expect_rejected thrown 'uncaught Error: self-test: thrown (thrown.html:' \
        "$(changed "$good" "$end" "<script>throw new Error('self-test: thrown')</script>")"
    expect_rejected console-error 'console.error: self-test: logged' \
        "$(changed "$good" "$end" "<script>console.error('self-test: logged')</script>")"
    expect_rejected unhandled-rejection 'unhandled promise rejection: Error: self-test: rejected' \
        "$(changed "$good" "$end" "<script>Promise.reject(new Error('self-test: rejected'))</script>")"
    # After the verdict is written: a late problem must still reach it.
    expect_rejected late-error 'uncaught Error: self-test: late' \
        "$(changed "$good" "$end" "<script>setTimeout(function () { throw new Error('self-test: late'); }, 2000);</script>")"
    expect_rejected missing-image 'failed to load <img src="images/absent.png">' \
        "$(changed "$good" "$end" '<img src="images/absent.png" alt="">')"
    expect_rejected dangling-site-link \
        'printed line links to a code line that does not exist: concurrent-printer-queue #concurrent-printer-queue:Printer.swift:99' \
        "$(changed "$good" "$link8" "${link8//8/99}")"
    expect_rejected no-code-block 'no <div class="code"> nor <p class="code-missing">: sum-operation' \
        "$(changed "$good" '<p class="code-missing">' '<p>')"
    expect_rejected rect-without-line \
        'timeline <rect data-site> with no <tr class="line"> of that data-site in its section: concurrent-printer-queue Printer.swift:98' \
        "$(changed "$good" '<rect data-site="Printer.swift:8"' '<rect data-site="Printer.swift:98"')"
    expect_rejected no-highlight \
        'mouseover on a <tr class="line"> does not add class "lit" to <rect data-site="Printer.swift:7">' \
        "$(changed "$good" "toggle('lit', on)" "toggle('lit', false)")"
    expect_rejected network 'refers to the network: <img src="https://example.com/logo.png">' \
        "$(changed "$good" "$end" '<img src="https://example.com/logo.png" alt="">')"
    # A page that removes the verdict: the checker must not pass in silence.
    expect_rejected verdict-removed 'no verdict in the rendered page' \
        "$(changed "$good" "$end" "<script>new MutationObserver(function () {
    document.querySelectorAll('pre[id^=check-result]').forEach(function (element) { element.remove(); });
}).observe(document.body, { childList: true });</script>")"

    if ((self_test_failures > 0)); then
        echo "self-test: FAILED: $self_test_failures of $((self_test_broken + 1)) pages judged wrongly" >&2
        return 1
    fi
    echo "self-test: passed: $self_test_broken broken pages rejected for their faults, the good page accepted"
}

main() {
    local mode=check page="$root/Reports/reference/index.html"
    case ${1:-} in
        -h | --help) usage; return 0 ;;
        --self-test) mode=self-test ;;
        -*) usage >&2; return 2 ;;
        '') ;;
        *) page=$1 ;;
    esac
    if (($# > 1)); then usage >&2; return 2; fi
    if ! chromium=$(find_chromium); then
        echo "skipped: chromium is not installed (apt-get install chromium)"
        return 0
    fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/check-report.XXXXXX")
    trap cleanup EXIT
    if [[ $mode == self-test ]]; then
        self_test
    else
        check_page "$page"
    fi
}

main "$@"
