#!/bin/bash
# Re-makes record.json: the normal kernel built in this checkout and in a copy of it at another
# path (with its own build tree, kernel cache off), then both manifests compared.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/kernel-reproducible
VMSCALE_CACHE=off .venv/bin/vmscale build kernel
copy=$(mktemp -d)/elsewhere/vmscale
mkdir -p "$copy"
cp -r SConstruct.local scripts guest-workloads kernel-patches "$copy/"
(cd "$copy" && VMSCALE_CACHE=off PYTHONPATH="$copy/scripts" "$OLDPWD/.venv/bin/python" -c \
    "from vmscale import kernel; kernel.build_kernel('normal')")
cp build/kernel/normal/manifest.json "$out/manifest-a.json"
cp "$copy/build/kernel/normal/manifest.json" "$out/manifest-b.json"
.venv/bin/python - "$out" <<'PY'
import json, sys
d = sys.argv[1]
a, b = (json.load(open(f"{d}/manifest-{k}.json")) for k in "ab")
assert a["vmlinux_sha256"] == b["vmlinux_sha256"], (a["vmlinux_sha256"], b["vmlinux_sha256"])
rec = {"what": "the normal kernel built twice from one source, series and config, in two directories (two "
               "checkouts at different paths, their own build trees and extracted sources), with vmscale's "
               "reproducible build settings; the same vmlinux both times",
       "source": a["source"]["tarball"], "source_sha256": a["source"]["sha256"], "series_sha256": a["series_sha256"],
       "config_sha256": a["config_sha256"], "compiler": a["reproducible"]["compiler"],
       "vmlinux_sha256": a["vmlinux_sha256"],
       "builds": {k: {"vmlinux": m["vmlinux"], "built_at": m["built_at"]} for k, m in (("a", a), ("b", b))},
       "kernel_release": a["kernel_release"]}
json.dump(rec, open(f"{d}/record.json", "w"), indent=1)
print("identical:", rec["vmlinux_sha256"])
PY
