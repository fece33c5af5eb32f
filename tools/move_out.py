#!/usr/bin/env python3
"""Removes the named entry points from src/capi/*/unimplemented.rs (once they
are implemented elsewhere). Usage: tools/move_out.py NAME [NAME ...]"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
names = set(sys.argv[1:])
for path in sorted((ROOT / "src/capi").glob("*/unimplemented.rs")):
    text = path.read_text()
    # An item: its doc line, optional cfg, #[unsafe(no_mangle)], the fn up to "}\n\n".
    pattern = re.compile(r"/// Not implemented yet[^\n]*\n(?:#\[cfg[^\n]*\n)?#\[unsafe\(no_mangle\)\]\n"
                         r"pub unsafe extern \"C\" fn (\w+)\(.*?\n}\n\n?", re.S)
    kept = pattern.sub(lambda m: "" if m.group(1) in names else m.group(0), text)
    if kept != text:
        path.write_text(kept)
        found = {m.group(1) for m in pattern.finditer(text)} & names
        print(f"{path.relative_to(ROOT)}: moved out {len(found)}")
