#!/usr/bin/env bash
# Writes swift-clocks' and combine-schedulers' own tests into Tests/ (ignored by git), from
# SwiftPM's checkouts of the versions Package.swift names, with only their imports changed to
# Tempo's. Nothing else in them is touched.
set -euo pipefail
cd "$(dirname "$0")"

swift package resolve >/dev/null
checkouts=.build/checkouts

copy() { # suite checkout
  rm -rf "Tests/$1"
  mkdir -p "Tests/$1"
  cp -R "$checkouts/$2/Tests/$1/." "Tests/$1/"
  find "Tests/$1" -name '*.swift' -print0 | xargs -0 sed -i.orig \
    -e 's/^\([[:space:]]*\)import Clocks$/\1import TempoClocks/' \
    -e 's/^\([[:space:]]*\)import CombineSchedulers$/\1import TempoSchedulers/'
  find "Tests/$1" -name '*.orig' -delete
}

copy ClocksTests swift-clocks
copy CombineSchedulersTests combine-schedulers
echo "Tests/: swift-clocks' and combine-schedulers' suites, imports changed to Tempo's"
