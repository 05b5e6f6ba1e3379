#!/usr/bin/env bash
# Install everything the build and the tests need. Idempotent: a second run only checks.
#
#   scripts/setup.sh
#
# Steps: (a) the wasm32-unknown-unknown standard library, (b) wasm-pack,
# (c) wasm-bindgen-cli at the version in Cargo.lock, (d) Chromium and ChromeDriver from
# Debian, (e) playwright-core and binaryen (wasm-opt) from package-lock.json, (f) the Go
# modules of the Kubernetes oracle (oracle/go.mod; Go itself comes with the machine).
# Installing needs root (apt-get, and the Debian route writes into /usr/lib/rustlib).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SHEPHERD_ROOT"
export DEBIAN_FRONTEND=noninteractive

STEP="" STEP_T0=$SECONDS
# Each step prints its name; one that took a while says how long when the next one starts.
step_end() { [ -n "$STEP" ] && [ $((SECONDS - STEP_T0)) -ge 5 ] && note "($((SECONDS - STEP_T0)) s)"; return 0; }
step() { step_end; STEP="$1"; STEP_T0=$SECONDS; say "$1"; }
fail() {
  printf '%sSETUP FAILED%s at step "%s": %s\n' "$_R" "$_0" "$STEP" "$1" >&2
  [ -n "${2:-}" ] && printf '    what to do: %s\n' "$2" >&2
  exit 1
}

# Run a long command quietly; show the tail of its log if it fails.
LOGDIR="$SHEPHERD_ROOT/target-wasm/setup-logs"
mkdir -p "$LOGDIR"
quiet() {
  local name="$1"; shift
  local log="$LOGDIR/$name.log"
  if "$@" >"$log" 2>&1; then return 0; fi
  echo "---- last lines of $log ----" >&2
  tail -n 25 "$log" >&2
  return 1
}

APT_UPDATED=0
apt_missing() {
  local p out=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || out+=("$p")
  done
  echo "${out[@]:-}"
}
apt_install() {
  [ "$#" -gt 0 ] || return 0
  [ "$(id -u)" = 0 ] || fail "needs root to install $*" "run scripts/setup.sh as root, or: sudo apt-get install -y $*"
  if [ "$APT_UPDATED" = 0 ]; then
    note "apt-get update"
    quiet apt-update apt-get update || fail "apt-get update failed" "check the network and /etc/apt/sources.list, then rerun"
    APT_UPDATED=1
  fi
  note "apt-get install $*"
  quiet "apt-install" apt-get install -y --no-install-recommends "$@" ||
    fail "apt-get install $* failed" "see $LOGDIR/apt-install.log; try: apt-get install -y $*"
}

T0=$SECONDS
# wasm-pack and wasm-bindgen-cli share many dependencies: build them in one target dir
# (made on first use, removed on exit). Native toolchain, whatever the wasm route.
INSTALL_TARGET=""
trap 'rm -rf ${INSTALL_TARGET:+"$INSTALL_TARGET"}' EXIT
cargo_install() {
  [ -n "$INSTALL_TARGET" ] || INSTALL_TARGET="$(mktemp -d -t shepherd-cargo-install.XXXXXX)"
  ( unset RUSTC RUSTDOC; CARGO_TARGET_DIR="$INSTALL_TARGET" cargo install --quiet "$@" )
}

# ---------------------------------------------------------------- (a) wasm32 target
step "(a) wasm32-unknown-unknown target"
if rustup_has_wasm_target; then
  note "rustup's own target is installed"
elif debian_std_ready; then
  note "Debian route: wasm32 std already built for $("$DEBIAN_RUSTC" --version)"
else
  command -v cargo >/dev/null || fail "cargo not found" "install Rust with rustup first"
  ok=0
  if [ "$SHEPHERD_WASM_ROUTE" = debian ]; then
    note "SHEPHERD_WASM_ROUTE=debian: not asking rustup"
  elif command -v rustup >/dev/null 2>&1; then
    note "trying: rustup target add $WASM_TARGET (20 s limit)"
    if timeout -k 5 20 rustup target add "$WASM_TARGET" >"$LOGDIR/rustup-target.log" 2>&1 && rustup_has_wasm_target; then
      ok=1; note "installed by rustup"
    else
      [ "$SHEPHERD_WASM_ROUTE" = rustup ] && fail "rustup target add $WASM_TARGET failed" "see $LOGDIR/rustup-target.log, or unset SHEPHERD_WASM_ROUTE"
      note "rustup could not install it; using the Debian route (rustc-web + rust-web-src)"
    fi
  fi
  if [ "$ok" = 0 ]; then
    apt_install $(apt_missing rustc-web rust-web-src)
    [ -x "$DEBIAN_RUSTC" ] || fail "$DEBIAN_RUSTC missing after installing rustc-web" "check: apt-cache policy rustc-web"
    if ! wasm_linker >/dev/null; then
      note "no rustup rust-lld: installing Debian's lld-19"
      apt_install $(apt_missing lld-19)
    fi
    LLD="$(wasm_linker)" || fail "no wasm linker found" "install rustup (it ships rust-lld) or: apt-get install lld-19"
    SYSROOT="$("$DEBIAN_RUSTC" --print sysroot)"
    [ -d "$SYSROOT/lib/rustlib/src/rust/library" ] || fail "std source missing under $SYSROOT/lib/rustlib/src" "apt-get install --reinstall rust-web-src"
    LIBDIR="$SYSROOT/lib/rustlib/$WASM_TARGET/lib"
    note "building the wasm32 std with $("$DEBIAN_RUSTC" --version) (about 75 s on 2 cores)"
    VEH="$(mktemp -d)"
    trap 'rm -rf "$VEH"' EXIT
    mkdir -p "$VEH/src"
    printf '[package]\nname = "shepherd_std_vehicle"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n' >"$VEH/Cargo.toml"
    : >"$VEH/src/lib.rs"
    ( cd "$VEH" && env -u CARGO_TARGET_DIR RUSTC="$DEBIAN_RUSTC" RUSTDOC="$DEBIAN_RUSTDOC" RUSTC_BOOTSTRAP=1 \
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER="$LLD" \
        cargo build --release --target "$WASM_TARGET" -Zbuild-std=std,test,panic_abort ) >"$LOGDIR/build-std.log" 2>&1 ||
      { tail -n 25 "$LOGDIR/build-std.log" >&2; fail "building the wasm32 std failed" "see $LOGDIR/build-std.log"; }
    # Clear first: rlibs from two builds differ in hash, and two candidates for `core` break every build.
    rm -rf "$LIBDIR" && mkdir -p "$LIBDIR" || fail "cannot write $LIBDIR" "run as root"
    find "$VEH/target/$WASM_TARGET/release/deps" -maxdepth 1 -name 'lib*.rlib' ! -name 'libshepherd_std_vehicle-*' \
      -exec cp {} "$LIBDIR/" \;
    "$DEBIAN_RUSTC" -vV >"$(debian_stamp)"
    debian_std_ready || fail "the std was built but $LIBDIR looks incomplete" "rm -rf $LIBDIR and rerun"
    rm -rf "$VEH"; trap 'rm -rf ${INSTALL_TARGET:+"$INSTALL_TARGET"}' EXIT
    note "installed $(ls "$LIBDIR" | wc -l) rlibs into $LIBDIR"
  fi
fi
( shepherd_wasm_env ) || fail "the wasm environment is not usable" "rm -f $(debian_stamp) and rerun"

# ---------------------------------------------------------------- (b) wasm-pack
step "(b) wasm-pack"
if command -v wasm-pack >/dev/null 2>&1; then
  note "$(wasm-pack --version)"
else
  note "cargo install wasm-pack --version $WASM_PACK_VERSION (a few minutes)"
  quiet install-wasm-pack cargo_install wasm-pack --version "$WASM_PACK_VERSION" ||
    fail "cargo install wasm-pack failed" "see $LOGDIR/install-wasm-pack.log"
fi

# ---------------------------------------------------------------- (c) wasm-bindgen-cli
step "(c) wasm-bindgen-cli"
WB="$(wasm_bindgen_locked_version)"
[ -n "$WB" ] || fail "no wasm-bindgen in Cargo.lock" "run: cargo generate-lockfile"
have="$( (wasm-bindgen --version 2>/dev/null || true) | awk '{print $2}')"
if [ "$have" = "$WB" ] && command -v wasm-bindgen-test-runner >/dev/null 2>&1; then
  note "wasm-bindgen $have (matches Cargo.lock)"
else
  note "cargo install wasm-bindgen-cli --version $WB${have:+ (found $have)} (a few minutes)"
  # No --locked: its lock file pins a crate version the registry mirror here does not serve.
  quiet install-wasm-bindgen cargo_install --force wasm-bindgen-cli --version "$WB" ||
    fail "cargo install wasm-bindgen-cli --version $WB failed" "see $LOGDIR/install-wasm-bindgen.log"
fi

# ---------------------------------------------------------------- (d) Debian packages
step "(d) chromium, chromium-driver"
missing="$(apt_missing chromium chromium-driver)"
if [ -z "$missing" ]; then
  note "chromium $(dpkg-query -W -f='${Version}' chromium), chromium-driver $(dpkg-query -W -f='${Version}' chromium-driver)"
else
  apt_install $missing
fi
command -v chromedriver >/dev/null || fail "chromedriver not on PATH" "apt-get install chromium-driver"

# ---------------------------------------------------------------- (e) npm packages
# binaryen comes from npm, not Debian: Debian 12's wasm-opt (108) breaks wasm-bindgen's output.
step "(e) playwright-core, binaryen (npm ci)"
command -v node >/dev/null && command -v npm >/dev/null || apt_install $(apt_missing nodejs npm)
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
[ "$node_major" -ge 20 ] || fail "Node.js $(node --version 2>/dev/null) is too old: playwright-core needs 20 or newer" \
  "install Node.js 20+ (the machine image ships it at /usr/bin/node)"
# Prints what is installed when node_modules matches package-lock.json; fails otherwise.
npm_ok() {
  node -e '
    const lock = require("./package-lock.json").packages, have = [];
    for (const [k, v] of Object.entries(lock)) {
      if (!k.startsWith("node_modules/")) continue;
      let got; try { got = require("./" + k + "/package.json").version } catch { process.exit(1) }
      if (got !== v.version) process.exit(1);
      have.push(k.slice(13) + "@" + got);
    }
    console.log(have.join(", "))' 2>/dev/null
}
if have="$(npm_ok)"; then
  note "node_modules matches package-lock.json ($have)"
else
  note "npm ci"
  quiet npm-ci npm ci --no-audit --no-fund || fail "npm ci failed" "see $LOGDIR/npm-ci.log"
  npm_ok >/dev/null || fail "node_modules does not match package-lock.json after npm ci" "rm -rf node_modules and rerun"
fi

# ---------------------------------------------------------------- (f) Go modules
# The oracle (oracle/, scripts/oracle.sh) builds from k8s.io/kubernetes v1.37.2 and its
# staging modules; go mod download fetches what go.sum names into the module cache
# (GOMODCACHE, default ~/go/pkg/mod) and only checks when they are there.
step "(f) Go modules of the Kubernetes oracle (go mod download)"
command -v go >/dev/null 2>&1 || fail "go not found" "install Go 1.26 (the machines of this project come with it)"
(cd oracle && quiet go-mod-download go mod download) ||
  fail "go mod download failed" "see $LOGDIR/go-mod-download.log; check that the Go module proxy is reachable (go env GOPROXY)"
note "$(go version | cut -d' ' -f3), modules in $(go env GOMODCACHE)"

step_end
say "setup done in $((SECONDS - T0)) s"
