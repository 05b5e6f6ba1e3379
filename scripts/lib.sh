# Shared helpers for the scripts in this folder. Source it; it sets no shell options.
#
#   . scripts/lib.sh
#   shepherd_wasm_env      # exports what a wasm32 build or test needs (see below)

SHEPHERD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WASM_TARGET=wasm32-unknown-unknown
# wasm-pack installed by scripts/setup.sh when none is on PATH.
WASM_PACK_VERSION=0.15.1
# Where the Debian route's stamp lives (inside the Debian sysroot's wasm32 folder).
DEBIAN_RUSTC=/usr/bin/rustc
DEBIAN_RUSTDOC=/usr/bin/rustdoc

# cargo install puts tools here; make sure they are found even from a bare environment.
case ":$PATH:" in
  *":$HOME/.cargo/bin:"*) ;;
  *) export PATH="$HOME/.cargo/bin:$PATH" ;;
esac

if [ -t 1 ]; then _B=$'\e[1m'; _R=$'\e[31m'; _G=$'\e[32m'; _0=$'\e[0m'; else _B=; _R=; _G=; _0=; fi
say()  { printf '%s==>%s %s\n' "$_B" "$_0" "$*"; }
note() { printf '    %s\n' "$*"; }
die()  { printf '%sERROR:%s %s\n' "$_R" "$_0" "$*" >&2; exit 1; }

# The wasm-bindgen version the workspace is locked to (wasm-bindgen-cli must match it exactly).
wasm_bindgen_locked_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$SHEPHERD_ROOT/Cargo.lock"
}

# SHEPHERD_WASM_ROUTE picks how wasm32 builds get their standard library:
#   auto (default): rustup's target if installed or installable, else the Debian route;
#   debian: the Debian route even when rustup has the target; rustup: rustup's target only.
SHEPHERD_WASM_ROUTE="${SHEPHERD_WASM_ROUTE:-auto}"

# True when rustup's own wasm32 target is installed for the active toolchain
# (and the route in use may take it).
rustup_has_wasm_target() {
  [ "$SHEPHERD_WASM_ROUTE" != debian ] && command -v rustup >/dev/null 2>&1 &&
    (cd "$SHEPHERD_ROOT" && rustup target list --installed 2>/dev/null) | grep -qx "$WASM_TARGET"
}

# The wasm32 lib folder of Debian's rustc sysroot, e.g. /usr/lib/rustlib/wasm32-unknown-unknown/lib.
debian_wasm_libdir() { echo "/usr/lib/rustlib/$WASM_TARGET/lib"; }
debian_stamp() { echo "/usr/lib/rustlib/$WASM_TARGET/shepherd-std.stamp"; }

# True when the Debian route's wasm32 std is built for the Debian rustc installed now.
debian_std_ready() {
  local lib stamp n
  lib="$(debian_wasm_libdir)"; stamp="$(debian_stamp)"
  [ -x "$DEBIAN_RUSTC" ] && [ -f "$stamp" ] || return 1
  [ "$(cat "$stamp")" = "$("$DEBIAN_RUSTC" -vV 2>/dev/null)" ] || return 1
  for n in core alloc std test panic_abort compiler_builtins; do
    [ "$(find "$lib" -maxdepth 1 -name "lib$n-*.rlib" 2>/dev/null | wc -l)" = 1 ] || return 1
  done
}

# The wasm linker: rustup's rust-lld (asked of rustup's rustc, never Debian's), else Debian's wasm-ld-19.
wasm_linker() {
  local rc sysroot lld
  if command -v rustup >/dev/null 2>&1 && rc="$(cd "$SHEPHERD_ROOT" && rustup which rustc 2>/dev/null)"; then
    sysroot="$(dirname "$(dirname "$rc")")"
    lld="$sysroot/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld"
    [ -x "$lld" ] && { echo "$lld"; return 0; }
  fi
  for lld in /usr/bin/wasm-ld-19 /usr/lib/llvm-19/bin/wasm-ld; do
    [ -x "$lld" ] && { echo "$lld"; return 0; }
  done
  return 1
}

# Export the environment for wasm32 builds and tests.
# - rustup's own wasm32 target installed: nothing to change.
# - Debian route: Debian's rustc/rustdoc (whose sysroot has the wasm32 std built by setup.sh),
#   the rust-lld linker, a separate target dir (so native builds keep their cache), and a
#   shim folder first on PATH so that tools which run plain `rustc` (wasm-pack's target
#   check) see the same compiler as cargo.
shepherd_wasm_env() {
  if rustup_has_wasm_target; then
    return 0
  fi
  if ! debian_std_ready; then
    echo "no wasm32-unknown-unknown standard library found: run scripts/setup.sh" >&2
    return 1
  fi
  local lld shim
  lld="$(wasm_linker)" || { echo "no wasm linker (rust-lld or wasm-ld-19) found: run scripts/setup.sh" >&2; return 1; }
  shim="$SHEPHERD_ROOT/target-wasm/bin"
  if [ ! -x "$shim/rustc" ] || [ ! -x "$shim/rustdoc" ]; then
    mkdir -p "$shim"
    ln -sf "$DEBIAN_RUSTC" "$shim/rustc"
    ln -sf "$DEBIAN_RUSTDOC" "$shim/rustdoc"
  fi
  case ":$PATH:" in *":$shim:"*) ;; *) export PATH="$shim:$PATH" ;; esac
  export RUSTC="$DEBIAN_RUSTC" RUSTDOC="$DEBIAN_RUSTDOC"
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER="$lld"
  export CARGO_TARGET_DIR="$SHEPHERD_ROOT/target-wasm"
}

# Build the wasm package of web/ into ./pkg (release, --target web), then optimize it.
# Runs in a subshell so the wasm environment does not leak into native builds.
# SHEPHERD_WASM_OPT=0 skips wasm-opt (a faster edit-and-reload loop, a bigger module).
build_pkg() {
  (
    shepherd_wasm_env || exit 1
    cd "$SHEPHERD_ROOT" &&
      wasm-pack --log-level warn build --release --target web --no-pack --out-dir ../pkg web || exit 1
    [ "${SHEPHERD_WASM_OPT:-1}" = 0 ] || optimize_wasm "$SHEPHERD_ROOT/pkg/shepherd_web_bg.wasm"
  )
}

# The features rustc enables by default for wasm32-unknown-unknown; wasm-opt keeps to these.
WASM_OPT_FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)

# wasm-opt -O in place, with binaryen's wasm-opt from node_modules (package-lock.json pins it).
# Debian 12's wasm-opt (binaryen 108) is too old: its output fails to instantiate.
# The result is cached by the input's hash, so an unchanged build costs nothing.
optimize_wasm() {
  local wasm="$1" opt="$SHEPHERD_ROOT/node_modules/.bin/wasm-opt"
  local cache="$SHEPHERD_ROOT/target-wasm/wasm-opt-cache" sum
  [ -x "$opt" ] || { echo "wasm-opt missing from node_modules: run scripts/setup.sh" >&2; return 1; }
  sum="$(sha256sum "$wasm" | cut -c1-32)"
  if [ -f "$cache/$sum.wasm" ]; then
    cp "$cache/$sum.wasm" "$wasm"
    return 0
  fi
  local before; before="$(stat -c %s "$wasm")"
  "$opt" -O "${WASM_OPT_FEATURES[@]}" "$wasm" -o "$wasm.opt" || { rm -f "$wasm.opt"; return 1; }
  mv "$wasm.opt" "$wasm"
  mkdir -p "$cache" && rm -f "$cache"/*.wasm && cp "$wasm" "$cache/$sum.wasm"
  echo "wasm-opt -O: $before -> $(stat -c %s "$wasm") bytes"
}

# Assemble dist/ from index.html, www/ and pkg/ (pkg must be built).
assemble_dist() {
  local d="$SHEPHERD_ROOT/dist"
  rm -rf "$d" && mkdir -p "$d/pkg" &&
    cp "$SHEPHERD_ROOT/index.html" "$d/" &&
    cp -r "$SHEPHERD_ROOT/www" "$d/www" &&
    cp "$SHEPHERD_ROOT/pkg/shepherd_web.js" "$SHEPHERD_ROOT/pkg/shepherd_web_bg.wasm" "$d/pkg/"
}
