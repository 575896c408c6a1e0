#!/usr/bin/env python3
"""Prints the Varnish config of a dwfetch serve fleet: the shard director keyed on the *source* URL.

    bench/serve/fleet_vcl.py PORT [PORT...] > fleet.vcl

Used by bench/serve/fleet and by DWServeProcessTests' FleetTests (one source of truth). Every instance is on 127.0.0.1.
- One source lives on one instance: the shard key is the part of the path after the signature and the options
  (every option has a ':'; the source is plain/... or base64url segments, neither of which has one), without its
  @ext or .ext, so every variant of a source goes where its original is cached: one origin fetch per fleet.
- thumbor URLs (a 28-character signature ending in `=`, or `/unsafe/` followed by a segment only thumbor's grammar
  has: meta, a trim, a size, a crop, fit-in, an alignment, smart, filters) are keyed on their image part: the path
  without thumbor's option segments, in thumbor's order. `/unsafe/trim…` is thumbor's, as serve classifies it with
  the thumbor dialect on (docs/thumbor.md: imgproxy's `trim:` cannot directly follow `unsafe/` there).
- Health probes on /health; a sick instance's share moves to the others (the ring keeps the rest in place).
- A backend error (refused or reset connection, timeout, 5xx) is retried once on the next instance of the ring.
- Accept is normalised to the format bucket the instances vary on (--auto-format), so browsers share objects.
- `PURGE` with an `xkey` header (from loopback only) drops every object whose answer carried that key: serve puts
  the source's hash (and the URL's tag:) in `xkey`, so one purge drops every variant of a source (varnish-modules'
  xkey). The instances' own caches are not purged by it: bench/serve/purge-fleet purges every instance (their admin
  listeners' signed POST /purge) and then Varnish, in that order.
"""
import sys

ports = [int(p) for p in sys.argv[1:]]
if not ports:
    sys.exit(__doc__)

out = ["vcl 4.1;", "import directors;", "import xkey;", "", 'acl purgers { "127.0.0.1"; }', "",
       "probe health {",
       '    .url = "/health";',
       "    .interval = 0.5s; .timeout = 0.5s; .window = 3; .threshold = 2; .initial = 2;",
       "}"]
for i, port in enumerate(ports):
    out.append(f'backend i{i} {{ .host = "127.0.0.1"; .port = "{port}"; .probe = health; '
               f'.connect_timeout = 1s; .first_byte_timeout = 30s; }}')
out += ["", "sub vcl_init {", "    new fleet = directors.shard();"]
out += [f"    fleet.add_backend(i{i});" for i in range(len(ports))]
out += ["    fleet.reconfigure();", "}", ""]
out.append(r'''sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) { return (synth(403, "Forbidden")); }
        if (!req.http.xkey) { return (synth(400, "PURGE needs an xkey header")); }
        set req.http.X-Purged = xkey.purge(req.http.xkey);
        return (synth(200, "Purged " + req.http.X-Purged));
    }
    if (req.url ~ "^/(health|metrics)$") { return (pass); }
    if (req.url ~ "^/[A-Za-z0-9_-]{27}=/" || req.url ~ "^/unsafe/(meta|trim(:[^/]*)?|[0-9]+x[0-9]+:[0-9]+x[0-9]+|(adaptive-)?(full-)?fit-in|-?[0-9]*x-?[0-9]*|left|right|center|top|bottom|middle|smart|filters:[^/]*)/") {
        # thumbor: drop the signature, then each option segment thumbor's grammar allows, in its order.
        set req.http.X-Fleet-Key = regsub(req.url, "^/[^/]*/(meta/)?(trim(:[^/]*)?/)?([0-9]+x[0-9]+:[0-9]+x[0-9]+/)?((adaptive-)?(full-)?fit-in/)?(-?[0-9]*x-?[0-9]*/)?((left|right|center)/)?((top|bottom|middle)/)?(smart/)?(filters:[^/]*/)?", "");
    } else {
    # The source: drop "/signature/", then every option segment (it has a ':'), then "plain/" and the extension.
    set req.http.X-Fleet-Key = regsub(req.url, "^/[^/]*/([^/]*:[^/]*/)*", "");
    if (req.http.X-Fleet-Key ~ "^plain/") {
        set req.http.X-Fleet-Key = regsub(req.http.X-Fleet-Key, "^plain/([^@]*)(@[A-Za-z0-9]+)?$", "\1");
    } else {
        set req.http.X-Fleet-Key = regsub(regsuball(req.http.X-Fleet-Key, "/", ""), "\.[A-Za-z0-9]+$", "");
    }
    }
    # Accept: only the image types the instances negotiate, always in one order (JPEG XL, AVIF, WebP: the instances'
    # own order), so clients that accept the same set share one cached object, and none loses a format it accepts.
    set req.http.X-Fleet-Accept = "";
    if (req.http.Accept ~ "image/jxl") { set req.http.X-Fleet-Accept = req.http.X-Fleet-Accept + ",image/jxl"; }
    if (req.http.Accept ~ "image/avif") { set req.http.X-Fleet-Accept = req.http.X-Fleet-Accept + ",image/avif"; }
    if (req.http.Accept ~ "image/webp") { set req.http.X-Fleet-Accept = req.http.X-Fleet-Accept + ",image/webp"; }
    if (req.http.X-Fleet-Accept == "") { unset req.http.Accept; }
    else { set req.http.Accept = regsub(req.http.X-Fleet-Accept, "^,", ""); }
    unset req.http.X-Fleet-Accept;
    unset req.http.Cookie;
    unset req.http.Authorization;
    return (hash);
}

sub vcl_backend_fetch {
    # alt = retries: the first try goes to the source's instance, the retry to the next healthy one of the ring.
    set bereq.backend = fleet.backend(by=KEY, key=fleet.key(bereq.http.X-Fleet-Key), alt=bereq.retries,
                                      healthy=CHOSEN);
}

sub vcl_backend_response {
    if (beresp.status >= 500 && bereq.retries < 1) { return (retry); }
    set beresp.http.X-Fleet-Backend = beresp.backend.name;
    set beresp.grace = 0s;
    set beresp.keep = 1h;
    if (beresp.status >= 400) { set beresp.ttl = 5s; }
}

sub vcl_backend_error {
    # Refused, reset or timed out (an instance that died before its probe noticed): once more, elsewhere.
    if (bereq.retries < 1) { return (retry); }
}

sub vcl_deliver {
    if (obj.hits > 0) { set resp.http.X-Cache = "HIT"; } else { set resp.http.X-Cache = "MISS"; }
}''')
print("\n".join(out))
