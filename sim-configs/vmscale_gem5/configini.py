"""Read what a gem5 run's config.ini says: core count, CPU model, memory system, protocol."""

import configparser
import re


def parse(text: str) -> configparser.ConfigParser:
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    cp.optionxform = str
    cp.read_string(text)
    return cp


def describe(text: str) -> dict:
    cp = parse(text)
    cores = [s for s in cp.sections() if re.fullmatch(r"board\.processor\.(cores|start|switch)\d*\.core", s)]
    cpu_types = sorted({cp[s].get("type", "?") for s in cores})
    ruby = any(s.endswith("ruby_system") for s in cp.sections())
    l1 = [s for s in cp.sections() if re.fullmatch(r".*ruby_system\.l1_controllers\d*", s)]
    # Older gem5 named controllers after their protocol (MESI_Two_Level_L1Cache_Controller);
    # v24 builds one protocol per binary and says only L1Cache_Controller (buildinfo has it).
    protocol = None
    for s in l1[:1]:
        m = re.match(r"(\w+?)_L1Cache_Controller", cp[s].get("type", ""))
        protocol = m.group(1) if m else None
    return {"cores": len(cores), "cpu_types": cpu_types, "ruby": ruby, "protocol": protocol,
            "l1_controllers": len(l1)}
