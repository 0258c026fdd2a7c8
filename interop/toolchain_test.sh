#!/usr/bin/env bash
# Tests ensure_npm (interop/toolchain.sh) without touching the machine: each case runs it with
# a PATH that holds only fakes (npm, node, id, apt-get) and links to the few real tools it
# uses. The fake apt-get records DEBIAN_FRONTEND and its arguments, and "installs" a package
# by writing fake commands (npm brings node, as Debian's npm brings nodejs).
#
#   interop/toolchain_test.sh    (interop/run.sh runs it first; interop/run.sh --self-test runs only it)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=interop/toolchain.sh
source "$HERE/toolchain.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CHMOD=$(command -v chmod)
CASES=0
FAILS=0

# new_case NAME: a fresh directory C with bin/ (fakes) and tools/ (links to real tools).
new_case() {
  CASE=$1 CASE_FAILED=0
  CASES=$((CASES + 1))
  C="$TMP/$CASES"
  mkdir -p "$C/bin" "$C/tools"
  local t
  for t in timeout env tail sed; do
    ln -s "$(command -v "$t")" "$C/tools/$t"
  done
  # shellcheck disable=SC2016 # expanded by the fake, not here
  fake id '[ "$1" = -u ] && echo "$FAKE_UID"'
  UID_IS=0 APT_FAILS=0
  unset NPM
}

# fake NAME BODY: writes the shell script C/bin/NAME.
fake() {
  printf '#!/bin/sh\n%s\n' "$2" >"$C/bin/$1"
  "$CHMOD" +x "$C/bin/$1"
}

fake_apt_get() {
  fake apt-get "echo \"DEBIAN_FRONTEND=\${DEBIAN_FRONTEND:-unset} \$*\" >>\"\$FAKE_APT_CALLS\"
case \" \$* \" in *' install '*) ;; *) exit 0 ;; esac
if [ \"\$FAKE_APT_FAILS\" = 1 ]; then echo 'E: Unable to locate package npm' >&2; exit 100; fi
for p in \"\$@\"; do
  case \$p in
    npm) set -- npm node ;;
    nodejs) set -- node ;;
    *) continue ;;
  esac
  for c in \"\$@\"; do printf '#!/bin/sh\\necho fake\\n' >\"\$FAKE_APT_BIN/\$c\"; $CHMOD +x \"\$FAKE_APT_BIN/\$c\"; done
  break
done"
}

# run_ensure: ensure_npm with PATH=C/bin:C/tools; sets RC, and leaves C/out, C/err, C/apt.calls.
run_ensure() {
  RC=0
  (
    export PATH="$C/bin:$C/tools" FAKE_UID=$UID_IS FAKE_APT_FAILS=$APT_FAILS
    export FAKE_APT_CALLS="$C/apt.calls" FAKE_APT_BIN="$C/bin"
    hash -r
    ensure_npm "$C/apt.log"
  ) >"$C/out" 2>"$C/err" || RC=$?
  touch "$C/apt.calls"
}

fail() {
  echo "FAIL toolchain: $CASE: $1"
  sed 's/^/    stdout: /' "$C/out"
  sed 's/^/    stderr: /' "$C/err"
  CASE_FAILED=1
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "exit $RC, want $1"; }

# expect_apt LINE...: the recorded apt-get calls, exactly.
expect_apt() {
  local want=""
  [ $# -gt 0 ] && want=$(printf '%s\n' "$@")
  [ "$(cat "$C/apt.calls")" = "$want" ] || fail "apt-get calls: '$(cat "$C/apt.calls")', want '$want'"
}

# expect_error WORD...: stderr is exactly one line, containing every WORD.
expect_error() {
  local w
  [ "$(wc -l <"$C/err")" -eq 1 ] || fail "stderr is $(wc -l <"$C/err") lines, want 1"
  for w in "$@"; do
    grep -qF -- "$w" "$C/err" || fail "stderr lacks '$w'"
  done
}

done_case() {
  if [ "$CASE_FAILED" -eq 0 ]; then
    echo "ok   toolchain: $CASE"
  else
    FAILS=$((FAILS + 1))
  fi
}

UPDATE="DEBIAN_FRONTEND=noninteractive -q -o DPkg::Lock::Timeout=60 update"
INSTALL="DEBIAN_FRONTEND=noninteractive -q -y -o DPkg::Lock::Timeout=60 --no-install-recommends install"

new_case "npm and node found: nothing to do"
fake npm 'echo 10.0.0'
fake node 'echo v22.0.0'
fake_apt_get
run_ensure
expect_rc 0
expect_apt
[ -s "$C/err" ] && fail "unexpected stderr"
done_case

new_case "npm and node missing, root, apt-get: installs Debian's npm non-interactively"
fake_apt_get
run_ensure
expect_rc 0
expect_apt "$UPDATE" "$INSTALL npm"
if [ ! -x "$C/bin/npm" ] || [ ! -x "$C/bin/node" ]; then fail "fake npm and node not installed"; fi
done_case

new_case "node missing, npm found, root, apt-get: installs nodejs"
fake npm 'echo 10.0.0'
fake_apt_get
run_ensure
expect_rc 0
expect_apt "$UPDATE" "$INSTALL nodejs"
done_case

new_case "npm missing, root, apt-get fails: one-line error naming npm"
fake_apt_get
APT_FAILS=1
run_ensure
expect_rc 1
expect_apt "$UPDATE" "$INSTALL npm"
expect_error "npm and node still not found" "apt-get install -y npm"
grep -qF 'Unable to locate package npm' "$C/out" || fail "apt-get's own error not shown"
done_case

new_case "npm missing, not root: no apt-get, one-line error with how to install"
fake node 'echo v22.0.0'
fake_apt_get
UID_IS=1000
run_ensure
expect_rc 1
expect_apt
expect_error "interop: npm not found" "apt-get install -y npm" "https://nodejs.org" "NPM=/path/to/npm"
done_case

new_case "npm and node missing, root, no apt-get: one-line error"
run_ensure
expect_rc 1
expect_error "interop: npm and node not found" "apt-get install -y npm"
done_case

new_case "NPM set to a missing path, root, apt-get: no apt-get, one-line error naming it"
fake node 'echo v22.0.0'
fake_apt_get
export NPM=/nonexistent/bin/npm
run_ensure
unset NPM
expect_rc 1
expect_apt
expect_error "interop: /nonexistent/bin/npm not found (NPM=/nonexistent/bin/npm)"
done_case

if [ "$FAILS" -ne 0 ]; then
  echo "toolchain self-test: $FAILS of $CASES cases FAILED"
  exit 1
fi
echo "toolchain self-test: all $CASES cases ok"
