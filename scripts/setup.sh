#!/usr/bin/env bash
# Installs what DWWebImage needs on Debian when it is missing, and the peers its tests drive.
# Idempotent and quiet when everything is already there. Needs root (or sudo) only when something is missing.
set -euo pipefail

# One package a line, with what needs it.
packages=(
  libcurl4-openssl-dev  # transfers (CCurlShim)
  libgif-dev            # GIF frames (CGif)
  zlib1g-dev            # cache entry compression (CZlib)
  pkg-config
  libvips-dev           # decoding and processors (DWWebImageProcessing)
  libtiff-dev           # libtiff's RGBA reader for TIFFs libvips refuses (CTiff; libvips-dev pulls it in today)
  libtiff-tools         # tiffcp, tiffcrop: the TIFF fixtures of the format corpus (make-corpus.py)
  libwebp-dev           # animated WebP frames through WebPAnimDecoder (CWebP; libvips-dev pulls it in today)
  libjpeg-dev           # JPEG results compressed on the transform's thread (CJpeg; libvips-dev pulls it in today)
  libchafa-dev          # terminal previews (DWWebImagePreview)
  libvips-tools         # vipsheader, vipsthumbnail: reference reader, fixtures and benchmark anchor
  python3               # Pillow: the other reference reader (tests install it with pip)
  tmux                  # the preview tests run dwfetch in a real terminal
  libsixel-bin          # sixel2png: the preview tests decode sixels back
  apache2               # RealServerTests: resume, no splicing and 304 against Apache httpd
  lighttpd              # … and lighttpd
  caddy                 # … and Caddy (Python's http.server is the fourth, with no Range)
  nginx-light           # TLSAndProxyTests, TLSFlagsTests: HTTPS and HTTP/2 with a test CA (ssl, http_v2 built in)
  openssl               # … which the tests make with the openssl CLI
  tinyproxy             # … and a forward proxy (GET and CONNECT)
  gzip                  # ContentEncodingTests: gzip-coded bodies and a gzip bomb
  varnish               # FleetTests, bench/serve/fleet: the shared cache and shard router in front of the instances
  varnish-modules       # FleetTests: xkey, the fleet's purge of every variant of a source by its Surrogate-Key
  systemd               # DeployUnitTests: systemd-analyze verify of deploy/dwfetch-serve.service
  libheif-examples      # heif-enc: ImgproxyServeTests make a HEIC with an embedded thumbnail (enforce_thumbnail)
  libjxl-tools          # cjxl, djxl: the JPEG XL sources and reference reader of JPEGXLTests, ImgproxyParityServeTests
  libavif-bin           # avifenc: bench/serve/encode-cost measures libvips' AVIF encode beside the reference tool
  librsvg2-bin          # rsvg-convert: SVGTests compare our SVG rasters with librsvg's own renderer at the same size
)
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

# Pillow for whichever python3 is first on PATH (the tests run that one): pip where it may install, else Debian's.
if ! python3 -c 'import PIL' >/dev/null 2>&1; then
  echo "setup: installing Pillow for python3" >&2
  python3 -m pip install --quiet Pillow >/dev/null 2>&1 || {
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends python3-pil >/dev/null
  }
fi

# PyPI's imgproxy client (the serve tests build imgproxy URLs with it, signed and unsigned), the way Pillow is installed.
if ! python3 -c 'import imgproxy' >/dev/null 2>&1; then
  echo "setup: installing the imgproxy URL builder for python3" >&2
  python3 -m pip install --quiet imgproxy >/dev/null 2>&1 || echo "setup: pip could not install imgproxy" >&2
fi

# thumbor 7.8.0 and libthumbor in their own venv at .venv-thumbor (gitignored): the thumbor dialect's tests
# (Tests/DWServeProcessTests/ThumborTests*.swift) run thumbor itself beside `dwfetch serve` and fail without it.
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ ! -x "$repo_root/.venv-thumbor/bin/thumbor" ]] || ! "$repo_root/.venv-thumbor/bin/python" -c 'import libthumbor' >/dev/null 2>&1; then
  echo "setup: installing thumbor 7.8.0 and libthumbor into .venv-thumbor" >&2
  { python3 -m venv "$repo_root/.venv-thumbor" \
      && "$repo_root/.venv-thumbor/bin/pip" install --quiet thumbor==7.8.0 libthumbor >/dev/null 2>&1; } \
    || echo "setup: could not install thumbor into .venv-thumbor (the thumbor tests need it)" >&2
fi

# moto's S3 server (moto[server] from PyPI: moto_server, flask) for the S3 tests, with boto3 for their set-up.
if ! command -v moto_server >/dev/null 2>&1 || ! python3 -c 'import moto.server, flask, flask_cors, boto3' >/dev/null 2>&1; then
  echo "setup: installing moto[server] for python3" >&2
  python3 -m pip install --quiet 'moto[server]' >/dev/null 2>&1 || {
    echo "setup: pip could not install moto[server] (the S3 tests need it)" >&2
    exit 1
  }
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "setup: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "setup: no Swift toolchain found (Swift 6 is needed: https://www.swift.org/install/linux/)" >&2
  fi
  exit 1
fi
