# SPDX-License-Identifier: GPL-2.0-only
"""libclang for the project's Python tools (extract-functions, shim-drift,
mutation): Debian's python3-clang-14, found from any python3 (a version
manager's included), bound to Debian's libclang-14 library."""
import os
import sys

LIBRARIES = ('/usr/lib/llvm-14/lib/libclang.so.1',
             '/usr/lib/x86_64-linux-gnu/libclang-14.so.1')


def cindex(tool):
    """clang.cindex, ready to parse; exits with a message naming `tool`
    when the package cannot be imported."""
    try:
        import clang.cindex as ci
    except ImportError:  # a python3 other than Debian's: use Debian's package
        sys.path.append('/usr/lib/python3/dist-packages')
        try:
            import clang.cindex as ci
        except ImportError:
            sys.exit(f'{tool}: needs libclang for python (Debian: python3-clang-14)')
    if not ci.Config.loaded:
        for cand in LIBRARIES:
            if os.path.exists(cand):
                ci.Config.set_library_file(cand)
                break
    return ci
