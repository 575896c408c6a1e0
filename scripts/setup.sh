#!/usr/bin/env bash
# Installs what DWWebImage needs on Debian when it is missing: libcurl, giflib, zlib and libvips headers, pkg-config,
# and libvips-tools (vipsthumbnail: the pixels benchmark's anchor; vips: the processing fixtures' generator).
# Idempotent and quiet when everything is already there. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(libcurl4-openssl-dev libgif-dev zlib1g-dev pkg-config libvips-dev libvips-tools)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq >/dev/null
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "setup: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "setup: no Swift toolchain found (Swift 6 is needed: https://www.swift.org/install/linux/)" >&2
  fi
  exit 1
fi
