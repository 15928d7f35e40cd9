# Helpers the CLI tests share; each test sources it:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# A test counts its failures in `failed` and ends with ((failed == 0)).
failed=0

# fail MESSAGE...: prints "FAIL: MESSAGE" and counts it; the test goes on.
fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

# expect_exit LABEL WANT OUT COMMAND...: runs COMMAND with stdout and stderr into the file OUT;
# when it exits other than WANT, fails LABEL, shows the end of OUT and returns 1.
expect_exit() {
  local label=$1 want=$2 out=$3
  shift 3
  "$@" >"$out" 2>&1
  local code=$?
  if [[ $code != "$want" ]]; then
    fail "$label: exit $code, expected $want"
    sed 's/^/    /' "$out" | tail -30
    return 1
  fi
}

# expect_text LABEL FRAGMENT FILE...: fails LABEL unless a line of one of the FILEs (missing
# ones are skipped) holds the fixed string FRAGMENT.
expect_text() {
  local label=$1 fragment=$2
  shift 2
  grep -qF -- "$fragment" "$@" 2>/dev/null || fail "$label: output lacks '$fragment'"
}
