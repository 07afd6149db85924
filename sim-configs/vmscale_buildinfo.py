"""Print what this gem5 binary was built with, as one JSON line (run by gem5).

`gem5 -B` would say the same, but in v24.0.0.1 it fails (m5.defines has no gem5Version).
"""

import json

import _m5.core
from m5.defines import buildEnv

print("VMSCALE-BUILDINFO " + json.dumps(
    {"version": _m5.core.gem5Version, **{k: str(v) for k, v in buildEnv.items()}}))
