#!/usr/bin/env bash
# System libraries Kivy needs to open an (offscreen) window; installed only when missing.
set -u
needed="libgl1 libegl1 libegl-mesa0 libgl1-mesa-dri libmtdev1"
missing=""
for pkg in $needed; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "warning: missing system libraries for the app UI:$missing (no apt-get here; UI tests will be skipped)" >&2
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "installing system libraries for the app UI:$missing"
$SUDO apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null \
  || echo "warning: could not install$missing; UI tests will be skipped" >&2
exit 0
