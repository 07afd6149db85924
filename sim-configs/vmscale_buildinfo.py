"""Print what this gem5 binary was built with, as one JSON line (run by gem5).

`gem5 -B` would say the same, but in v24.0.0.1 it fails (m5.defines has no gem5Version).
"""

import json
import os
import sys

import _m5.core
import m5.objects
from m5.defines import buildEnv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmscale_gem5.buildinfo import has_x2apic  # noqa: E402

print("VMSCALE-BUILDINFO " + json.dumps(
    {"version": _m5.core.gem5Version, **{k: str(v) for k, v in buildEnv.items()},
     "VMSCALE_X2APIC": str(has_x2apic(m5.objects))}))
