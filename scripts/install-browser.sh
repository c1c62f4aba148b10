#!/bin/sh
# `npm run install:browser`: the explorer's browser test (test/browser/explorer.test.ts)
# drives Debian's Chromium with playwright-core (never a browser downloaded by a test tool).
# This installs it when missing and we may (root, apt-get present); otherwise it says how.
# No test tier runs this (tests change nothing outside the repository): .ci/run does, before
# the tests. Without Chromium `npm run test:browser` fails and says how; `test:all` skips the
# browser test unless CAIRN_REQUIRE_BROWSER=1 (set by .ci/run and test:browser).
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the explorer's browser test…"
  log=/tmp/cairn-install-browser.log
  if apt-get install -y --no-install-recommends chromium >"$log" 2>&1 \
    || { apt-get update >>"$log" 2>&1 && apt-get install -y --no-install-recommends chromium >>"$log" 2>&1; }; then
    echo "chromium installed: $("$CHROMIUM" --version 2>/dev/null)"
    exit 0
  fi
  echo "could not install chromium (log: /tmp/cairn-install-browser.log)" >&2
  exit 0
fi
echo "no Chromium at $CHROMIUM: install Debian's package (sudo apt-get install chromium) or set CHROMIUM_PATH; \
the explorer's browser test skips without it" >&2
exit 0
