#!/usr/bin/env bash
# Builds each file of MustNotCompile/ and expects it NOT to compile, with the error written on its
# first line (`// expect: TEXT`), in the targets with and without MemberImportVisibility.
# A snippet that compiles means some spelling silently picks combine-schedulers' or swift-clocks'
# type over Tempo's: the script then fails.
set -uo pipefail
cd "$(dirname "$0")"
status=0
restore() {
  for target in Snippet SnippetWithoutMemberImportVisibility; do
    printf '// check-ambiguities.sh copies each file of MustNotCompile/ here in turn.\n' \
      >"Sources/$target/Snippet.swift"
  done
}
trap restore EXIT
swift build --build-tests >/dev/null || { echo "the package does not build"; exit 1; }
for snippet in MustNotCompile/*.swift; do
  expected=$(head -1 "$snippet" | sed -n 's|^// expect: ||p')
  for target in Snippet SnippetWithoutMemberImportVisibility; do
    cp "$snippet" "Sources/$target/Snippet.swift"
    if output=$(swift build --target "$target" 2>&1); then
      echo "FAIL $snippet compiled in $target: it must not"
      status=1
    elif ! grep -qF -- "error: $expected" <<<"$output"; then
      echo "FAIL $snippet in $target: expected \"error: $expected\", got:"
      grep 'error:' <<<"$output" | head -5
      status=1
    else
      echo "ok   $snippet in $target: $expected"
    fi
    restore
  done
done
exit $status
