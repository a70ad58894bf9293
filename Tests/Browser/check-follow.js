// The script a `watch` round's page follows the rounds with, run in Node against a page of the
// report folder, with the few browser objects it touches made here (see README.md):
//
//   node Tests/Browser/check-follow.js Reports/latest/index.html
//
// It checks that the page loads the folder's round.js each second, stays as it is while round.js
// names its own round, reloads once when round.js names another, keeping the reader's scroll
// position, and that the reloaded page scrolls back there. Prints "ok" and exits 0, or says what
// is wrong and exits 1. A page without the script (a report written once) fails: it follows nothing.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const page = process.argv[2];
const html = fs.readFileSync(page, "utf8");
const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]);
const follow = scripts.find((script) => script.includes("window.reportRound"));
if (!follow) fail("the page has no script that follows the rounds");
const roundFile = fs.readFileSync(path.join(path.dirname(page), "round.js"), "utf8");

function fail(why) {
  console.error("check-follow: " + why);
  process.exit(1);
}

// One page load: the script run in a window of its own, sharing the tab's session storage.
function load(session, scrollY) {
  const page = { reloads: 0, loaded: [], scrolledTo: null, tick: null };
  const window = {
    scrollY,
    scrollTo: (x, y) => { page.scrolledTo = y; },
  };
  const document = {
    head: {
      appendChild(element) {
        page.loaded.push(element.src);
        page.round.runInContext(context);
        element.onload();
      },
    },
    createElement: () => ({ remove() {} }),
  };
  const context = vm.createContext({
    window, document, Number, String, Date,
    sessionStorage: {
      getItem: (key) => (key in session ? session[key] : null),
      setItem: (key, value) => { session[key] = String(value); },
      removeItem: (key) => { delete session[key]; },
    },
    location: { reload: () => { page.reloads += 1; } },
    setInterval: (tick, milliseconds) => { page.tick = tick; page.interval = milliseconds; },
  });
  vm.runInContext(follow, context);
  // In a browser `window` is the global object: round.js's `reportRound(…)` is the page's.
  context.reportRound = (round) => window.reportRound(round);
  page.serve = (text) => { page.round = new vm.Script(text); };
  return page;
}

const session = {};
const first = load(session, 420);
if (first.interval !== 1000) fail(`round.js is loaded every ${first.interval} ms, not every second`);
first.serve(roundFile);
first.tick();
first.tick();
if (first.reloads !== 0) fail("the page reloaded while round.js named its own round");
if (!first.loaded.every((src) => /^round\.js\?\d+$/.test(src))) fail(`it loaded ${first.loaded.join(", ")}, not round.js with a fresh query`);
first.serve('reportRound("another round");\n');
first.tick();
if (first.reloads !== 1) fail(`another round made ${first.reloads} reloads, not one`);
first.tick();
if (first.reloads !== 1) fail("the page reloaded again for a round it had reloaded for");
const second = load(session, 0);
if (second.scrolledTo !== 420) fail(`the reloaded page scrolled to ${second.scrolledTo}, not the reader's 420`);
if (Object.keys(session).length !== 0) fail("the kept scroll position stays in the session after its use");
console.log("ok");
