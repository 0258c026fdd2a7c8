# shellcheck shell=bash
# Sourced by interop/run.sh (and interop/toolchain_test.sh): makes sure npm and node can run,
# which the lane needs once, to fetch its pinned toolchain (Node 22 included) into .tools/.

# ensure_npm LOG: returns 0 when ${NPM:-npm} and node are both found. When one is missing, NPM
# does not name another npm, and we run as root on a machine with apt-get, it installs Debian's
# npm (which brings nodejs), or nodejs alone when only node is missing, non-interactively, each
# apt-get bounded with timeout and its output in LOG. Otherwise, or when that fails, it prints one line to stderr naming the
# missing tool and how to install it, and returns 1.
ensure_npm() {
  local log=$1 npm=${NPM:-npm} missing pkgs=()
  missing=$(missing_npm_tools "$npm")
  [ -z "$missing" ] && return 0
  local how="install Node.js with npm (Debian/Ubuntu: sudo apt-get install -y npm; elsewhere https://nodejs.org/en/download), or set NPM=/path/to/npm"
  if [ "$npm" != npm ]; then
    echo "interop: $missing not found (NPM=$npm): the lane needs npm and node once, to fetch Node 22 and the MCP tools into .tools/; $how" >&2
    return 1
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "interop: $missing not found: the lane needs npm and node once, to fetch Node 22 and the MCP tools into .tools/; $how" >&2
    return 1
  fi
  if command -v npm >/dev/null 2>&1; then
    pkgs=(nodejs)
  else
    pkgs=(npm) # Debian's npm depends on nodejs
  fi
  echo "interop: $missing not found; installing Debian's ${pkgs[*]} with apt-get as root (output in $log)"
  if timeout --kill-after=10 300 env DEBIAN_FRONTEND=noninteractive \
    apt-get -q -o DPkg::Lock::Timeout=60 update </dev/null >"$log" 2>&1 &&
    timeout --kill-after=10 900 env DEBIAN_FRONTEND=noninteractive \
      apt-get -q -y -o DPkg::Lock::Timeout=60 --no-install-recommends install "${pkgs[@]}" </dev/null >>"$log" 2>&1; then
    hash -r
    missing=$(missing_npm_tools npm)
    [ -z "$missing" ] && return 0
  fi
  tail -n 20 "$log" 2>/dev/null | sed 's/^/  apt-get: /'
  echo "interop: $missing still not found after 'apt-get install -y ${pkgs[*]}' (see $log); $how" >&2
  return 1
}

# missing_npm_tools NPM: prints which of NPM and node are not found ("" when both are).
missing_npm_tools() {
  local out=""
  command -v "$1" >/dev/null 2>&1 || out=$1
  if ! command -v node >/dev/null 2>&1; then
    out=${out:+$out and }node
  fi
  printf '%s' "$out"
}

# install_tools: installs the pinned npm toolchain of interop/package-lock.json (Node 22 and the
# MCP tools) into $T (.tools) with npm ci, only when the lock changed since the last install
# ($T/npm.stamp); the lanes (interop/run.sh, interop/cluster.sh) call it. Uses $NPM and
# ensure_npm, run from the repository root.
install_tools() {
  local want have=""
  want=$(cat interop/package.json interop/package-lock.json | sha256sum | cut -d' ' -f1)
  [ -f "$T/npm.stamp" ] && have=$(cat "$T/npm.stamp")
  if [ "$want" = "$have" ] && [ -x "$T/node_modules/node/bin/node" ]; then
    echo "interop: npm toolchain up to date ($T)"
    return 0
  fi
  ensure_npm "$T/logs/apt-get.log" || return 1
  echo "interop: installing the npm toolchain into $T (npm ci)"
  rm -f "$T/npm.stamp"
  cp interop/package.json interop/package-lock.json "$T/"
  (cd "$T" && timeout --kill-after=10 480 "$NPM" ci --no-audit --no-fund --loglevel=error)
  if [ ! -x "$T/node_modules/node/bin/node" ]; then
    echo "interop: npm ci did not install the Node 22 binary (node@22's preinstall script did not run?)" >&2
    return 1
  fi
  echo "$want" >"$T/npm.stamp"
}
