// Injected by check-report.sh at the very start of the report's <head>, so that its hooks are in
// place before any of the page's own scripts or resources can fail. It collects
//   - console problems: uncaught exceptions, unhandled promise rejections, console.error and
//     failed console.assert calls, and failed loads of the files the page references (an error
//     event on an element, which only a capturing listener on window sees: it does not bubble);
//   - structure problems: what the report page must contain (see README.md in this folder);
// and writes its verdict into <pre id="check-result-NONCE"> at the end of <body>, which the shell
// script reads from Chromium's --dump-dom. A problem that happens after the verdict is written
// (a late timer, an event handler) rewrites it, so the dump holds everything seen until then.
//
// check-report.sh defines window.__checkReport = { nonce, page, lineOffset } just before this.
(function () {
    'use strict';
    var config = window.__checkReport || {};
    var problems = [];      // { kind: 'console' | 'structure' | 'checker', what, where }
    var sectionsChecked = -1;
    var verdict = null;     // the <pre>, once the structure has been checked

    function note(kind, what, where) {
        problems.push({ kind: kind, what: oneLine(what), where: oneLine(where || '') });
        if (verdict) render();
    }
    function structure(what, where) { note('structure', what, where); }

    function oneLine(text) { return String(text).replace(/\s+/g, ' ').trim(); }

    // "file:///tmp/check-report.x/page/index.html", line 40 → "index.html:12": the page's own
    // name and its own line numbers, without the lines this injection added to the copy.
    function place(file, line, column) {
        if (!file) return '';
        var name = file.replace(/[?#].*$/, '').replace(/^.*\//, '');
        if (file.replace(/[?#].*$/, '') === location.href.replace(/[?#].*$/, '')) {
            name = config.page || name;
            if (line > (config.lineOffset || 0)) line -= config.lineOffset || 0;
        }
        return ' (' + name + (line ? ':' + line + (column ? ':' + column : '') : '') + ')';
    }

    function show(value) {
        if (value instanceof Error) return value.name + ': ' + value.message;
        if (typeof value === 'string') return value;
        try { return JSON.stringify(value); } catch (_) { return String(value); }
    }

    // --- console problems: hooked before anything else on the page runs ---------------------

    var consoleError = console.error, consoleAssert = console.assert;
    console.error = function () {
        note('console', 'console.error: ' + Array.prototype.map.call(arguments, show).join(' '));
        return consoleError.apply(console, arguments);
    };
    console.assert = function (condition) {
        if (!condition) {
            note('console', 'console.assert failed: '
                + Array.prototype.slice.call(arguments, 1).map(show).join(' '));
        }
        return consoleAssert.apply(console, arguments);
    };

    window.addEventListener('error', function (event) {
        var target = event.target;
        if (target && target !== window && target.nodeType === 1) {
            // A resource that failed to load: <img>, <script>, <link>, SVG <image>, …
            var attribute = ['src', 'href', 'xlink:href', 'data'].filter(function (name) {
                return target.hasAttribute(name);
            })[0];
            var described = '<' + target.localName
                + (attribute ? ' ' + attribute + '="' + target.getAttribute(attribute) + '"' : '') + '>';
            note('console', 'failed to load ' + described);
            return;
        }
        var message = (event.message || show(event.error)).replace(/^Uncaught /, '');
        note('console', 'uncaught ' + message
            + place(event.filename, event.lineno, event.colno));
    }, true);

    window.addEventListener('unhandledrejection', function (event) {
        note('console', 'unhandled promise rejection: ' + show(event.reason));
    });

    // --- structure problems: checked once the page and everything it references has loaded --

    // PATH.swift:LINE, the path under Experiments/ (000-OperationAndOperationQueue/PrinterQueue.swift:30).
    var siteForm = /^((?:[^:\s\/]+\/)*[^:\s\/]+\.swift):([1-9][0-9]*)$/;

    function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }

    function withSite(root, site) {
        return all(root, '[data-site]').filter(function (element) {
            return element.getAttribute('data-site') === site;
        });
    }

    function describe(element) {
        var site = element.getAttribute('data-site');
        return '<' + element.localName + (site ? ' data-site="' + site + '"' : '') + '>';
    }

    function fragmentTarget(href) {
        var id = href.slice(1), decoded = id;
        try { decoded = decodeURIComponent(id); } catch (_) { /* keep it as written */ }
        return document.getElementById(id) || document.getElementById(decoded);
    }

    function checkSections() {
        var sections = all(document.body, ':scope > section');
        if (!sections.length) structure('no <section id="NAME"> directly under <body>');
        sections.forEach(function (section, index) {
            var name = section.id;
            if (!name) {
                structure('a <section> directly under <body> has no id', 'section ' + (index + 1));
                return;
            }
            if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) structure('section id is not kebab-case', name);
            checkCode(section, name);
            checkPrinted(section, name);
            checkTimeline(section, name);
        });
        sectionsChecked = sections.length;
    }

    function checkCode(section, name) {
        var code = all(section, 'div.code'), missing = all(section, 'p.code-missing');
        if (!code.length && !missing.length) {
            structure('no <div class="code"> nor <p class="code-missing">', name);
        }
        if (code.length && missing.length) {
            structure('both <div class="code"> and <p class="code-missing">', name);
        }
        if (code.length > 1) structure('more than one <div class="code">', name);
        missing.forEach(function (paragraph) {
            if (!paragraph.textContent.trim()) {
                structure('empty <p class="code-missing"> (it must say why the source cannot be shown)', name);
            }
        });
        code.forEach(function (block) { checkListings(block, name); });
    }

    function checkListings(block, name) {
        var listings = all(block, 'details.listing');
        if (!listings.length) {
            structure('no <details class="listing"> in <div class="code">', name);
            return;
        }
        if (!listings[0].open) structure('the first <details class="listing"> is not open', name);
        listings.forEach(function (listing, index) {
            var where = name + ', listing ' + (index + 1);
            var summary = listing.querySelector(':scope > summary');
            if (!summary || !summary.textContent.trim()) {
                structure('<details class="listing"> without a <summary> naming it', where);
            }
            var table = listing.querySelector('table.listing');
            if (!table) {
                structure('<details class="listing"> without a <table class="listing">', where);
                return;
            }
            var rows = all(table, 'tr.line');
            if (!rows.length) structure('<table class="listing"> without any <tr class="line">', where);
            rows.forEach(function (row) { checkRow(row, name); });
        });
    }

    function checkRow(row, name) {
        var site = row.getAttribute('data-site') || '';
        var parts = siteForm.exec(site);
        if (!parts) {
            structure('<tr class="line"> whose data-site is not FILE.swift:LINE', row.id || name);
            return;
        }
        var where = name + ' ' + site;
        if (row.id !== name + ':' + site) {
            structure('<tr class="line"> whose id is not NAME:FILE.swift:LINE', where + ' (id "' + row.id + '")');
        }
        // A line that did something can be focused from the keyboard, to light its bars.
        var results = row.querySelector('td.results');
        if (results && results.textContent.trim() !== '' && row.getAttribute('tabindex') !== '0') {
            structure('<tr class="line"> with results but without tabindex="0"', where);
        }
        var cells = Array.prototype.slice.call(row.cells);
        var shape = ['number', 'source', 'results'];
        if (cells.length !== 3 || !cells.every(function (cell, index) {
            return cell.localName === 'td' && cell.classList.contains(shape[index]);
        })) {
            structure('<tr class="line"> whose cells are not td.number, td.source, td.results', where);
            return;
        }
        if (cells[0].textContent.trim() !== parts[2]) {
            structure('<td class="number"> that is not the LINE of its data-site', where);
        }
        if (!cells[1].querySelector(':scope > code')) structure('<td class="source"> without <code>', where);
    }

    function checkPrinted(section, name) {
        all(section, 'pre.printed a.site').forEach(function (link) {
            var href = link.getAttribute('href') || '';
            var parts = /^#([^:]+):(.+)$/.exec(href);
            if (!parts || parts[1] !== name || !siteForm.test(parts[2])) {
                structure('printed <a class="site"> whose href is not #' + name + ':FILE.swift:LINE',
                    name + ' ' + href);
                return;
            }
            if (!fragmentTarget(href)) {
                structure('printed line links to a code line that does not exist', name + ' ' + href);
            }
            // The link reads as the file's name and line: PrinterQueue.swift:30.
            var named = parts[2].split('/').pop();
            if (link.textContent.trim() !== named) {
                structure('printed <a class="site"> whose text is not its FILE.swift:LINE', name + ' ' + href);
            }
        });
    }

    function checkTimeline(section, name) {
        var figures = all(section, 'figure.timeline');
        var inline = figures.filter(function (figure) { return figure.querySelector(':scope > svg'); });
        if (figures.length > 1) structure('more than one <figure class="timeline">', name);
        if (!inline.length) {
            var asImage = all(section, 'figure img').some(function (image) {
                return /(^|\/)timelines\//.test(image.getAttribute('src') || '');
            });
            structure('no <figure class="timeline"> with an inline <svg>'
                + (asImage ? ' (the timeline is an <img src="timelines/…">, not inline SVG)' : ''), name);
            return;
        }
        var rowSites = {};
        all(section, 'tr.line[data-site]').forEach(function (row) {
            rowSites[row.getAttribute('data-site')] = true;
        });
        inline.forEach(function (figure) {
            all(figure, 'svg rect[data-site]').forEach(function (rect) {
                var site = rect.getAttribute('data-site');
                if (!rowSites[site]) {
                    structure('timeline <rect data-site> with no <tr class="line"> of that data-site in its section',
                        name + ' ' + site);
                }
            });
        });
    }

    // The page's own script lights every element of a tr.line's data-site in its section while
    // the row is hovered or focused. Tried on one section, with events as a user's would be.
    function checkHighlight() {
        var name = 'concurrent-printer-queue';
        var section = document.getElementById(name);
        if (!section || section.parentElement !== document.body) return;
        var row = all(section, 'tr.line[data-site]').filter(function (candidate) {
            return withSite(section, candidate.getAttribute('data-site')).some(function (element) {
                return element.localName === 'rect';
            });
        })[0];
        if (!row) {
            structure('cannot check the hover highlight: no <tr class="line"> has a timeline <rect> with its data-site', name);
            return;
        }
        var site = row.getAttribute('data-site');
        var partners = withSite(section, site);
        var elsewhere = withSite(document, site).filter(function (element) { return !section.contains(element); });
        var inner = row.querySelector('td.source code') || row;   // where a pointer would really be
        var ways = [
            ['mouseover', 'mouseout', function (type) {
                return new MouseEvent(type, { bubbles: true, cancelable: true, view: window,
                    relatedTarget: type === 'mouseout' ? document.body : null });
            }],
            ['focusin', 'focusout', function (type) {
                return new FocusEvent(type, { bubbles: true, view: window,
                    relatedTarget: type === 'focusout' ? document.body : null });
            }],
        ];
        ways.forEach(function (way) {
            var on = way[0], off = way[1], event = way[2];
            (on === 'mouseover' ? inner : row).dispatchEvent(event(on));
            partners.forEach(function (element) {
                if (!element.classList.contains('lit')) {
                    structure(on + ' on a <tr class="line"> does not add class "lit" to ' + describe(element), name + ' ' + site);
                }
            });
            elsewhere.forEach(function (element) {
                if (element.classList.contains('lit')) {
                    structure(on + ' on a <tr class="line"> lights ' + describe(element) + ' in another section', name + ' ' + site);
                }
            });
            (on === 'mouseover' ? inner : row).dispatchEvent(event(off));
            partners.concat(elsewhere).forEach(function (element) {
                if (!element.classList.contains('lit')) return;
                structure(off + ' does not remove class "lit" from ' + describe(element), name + ' ' + site);
            });
        });
    }

    // Links inside the page must land somewhere (the printed lines' a.site are checked above).
    function checkFragmentLinks() {
        all(document, 'a[href^="#"]:not(.site)').forEach(function (link) {
            var href = link.getAttribute('href');
            if (href.length > 1 && !fragmentTarget(href)) structure('link to a missing id', href);
        });
        var seen = {};
        all(document, '[id]').forEach(function (element) {
            if (seen[element.id]) structure('duplicate id', element.id);
            seen[element.id] = true;
        });
    }

    // The report is self-contained: nothing it names may come from the network.
    function checkNoNetwork() {
        var remote = /^\s*(https?:|\/\/)/i;
        var urlAttributes = ['src', 'href', 'xlink:href', 'srcset', 'poster', 'data', 'action', 'formaction'];
        all(document, '*').forEach(function (element) {
            if (element.hasAttribute('data-check-report')) return;   // the <base> check-report.sh added
            urlAttributes.forEach(function (name) {
                var value = element.getAttribute(name);
                if (value === null) return;
                var urls = name === 'srcset' ? value.split(',') : [value];
                if (urls.some(function (url) { return remote.test(url); })) {
                    structure('refers to the network', '<' + element.localName + ' ' + name + '="' + value + '">');
                }
            });
        });
        var cssRemote = /(url\(\s*["']?|@import\s+["'])\s*(https?:|\/\/)/i;
        all(document, 'style, [style]').forEach(function (element) {
            var css = element.localName === 'style' ? element.textContent : element.getAttribute('style');
            if (cssRemote.test(css)) structure('CSS that refers to the network', '<' + element.localName + '>');
        });
    }

    // --- the verdict ---------------------------------------------------------------------------

    // Problems of the same kind and text are one line, with where they are (a few named), so
    // that a page missing a part in every section says so once.
    function render() {
        var groups = [], byKey = {};
        problems.forEach(function (problem) {
            var key = problem.kind + '\t' + problem.what;
            if (!byKey[key]) {
                byKey[key] = { kind: problem.kind, what: problem.what, where: [] };
                groups.push(byKey[key]);
            }
            if (problem.where) byKey[key].where.push(problem.where);
        });
        var count = function (kind) {
            return problems.filter(function (problem) { return problem.kind === kind; }).length;
        };
        var lines = ['check-report ' + config.nonce + ' ' + (problems.length ? 'fail' : 'ok')
            + ' sections=' + sectionsChecked + ' console=' + count('console')
            + ' structure=' + count('structure') + ' checker=' + count('checker')];
        // Kind by kind, at most 20 lines of each: 70 images that failed to load say so, not 70 lines.
        ['console', 'structure', 'checker'].forEach(function (kind) {
            var ofKind = groups.filter(function (group) { return group.kind === kind; });
            ofKind.slice(0, 20).forEach(function (group) {
                var where = group.where, shown = where.slice(0, 6).join(', ');
                if (where.length > 6) shown += ', … (' + where.length + ' in all)';
                lines.push(kind + '\t' + group.what + (shown ? ': ' + shown : ''));
            });
            if (ofKind.length > 20) lines.push(kind + '\t… and ' + (ofKind.length - 20) + ' more');
        });
        verdict.textContent = lines.join('\n');
    }

    window.addEventListener('load', function () {
        // After the load handlers the page's own scripts may have added, before reading the DOM.
        setTimeout(function () {
            [checkSections, checkHighlight, checkFragmentLinks, checkNoNetwork].forEach(function (check) {
                try { check(); } catch (error) {
                    note('checker', check.name + ' threw ' + show(error) + (error && error.stack ? ' ' + error.stack : ''));
                }
            });
            verdict = document.createElement('pre');
            verdict.id = 'check-result-' + config.nonce;
            document.body.appendChild(verdict);
            render();
        }, 0);
    });
})();
