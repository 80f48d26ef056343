# What every shell test starts with; source it after the test's `set` line:
#   . "$(dirname "$0")/lib.sh"
# It sets
#   src    the source tree: $ORDO_SOURCE_DIR, else the folder above tests/
#   ORDO   the ordo binary as an absolute path: $ORDO_BIN, else $src/build/ordo
#   BUILD  the build folder (the test executables): $ORDO_BUILD_DIR, else $src/build
#   dir    a new temporary folder, removed on exit (a test that sets its own EXIT trap
#          removes it there)
#   pass, fail, skip: the counts, 0
# and the helpers below. CTest sets the ORDO_* variables (CMakeLists.txt); run by hand from
# the source tree, the defaults find a build in build/.
src=${ORDO_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
ORDO=${ORDO_BIN:-$src/build/ordo}
ORDO=$(cd "$(dirname "$ORDO")" 2>/dev/null && pwd || dirname "$ORDO")/$(basename "$ORDO")
BUILD=${ORDO_BUILD_DIR:-$src/build}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0 skip=0

# ok: one check passed. bad TEXT: one failed, TEXT on stdout after "FAIL: ".
ok() { pass=$((pass + 1)); }
bad() {
  echo "FAIL: $*"
  fail=$((fail + 1))
}

# finish [NAME]: prints "[NAME: ]P passed, F failed[, S skipped]" and returns 0 only when no
# check failed: a test's last line.
finish() {
  local skipped=""
  [ "$skip" -gt 0 ] && skipped=", $skip skipped"
  echo "${1:+$1: }$pass passed, $fail failed$skipped"
  [ "$fail" -eq 0 ]
}
