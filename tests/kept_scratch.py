# SPDX-License-Identifier: GPL-2.0-only
"""A scratch folder kept between runs of a script check, keyed by the
content of what it is made from beyond what ninja tracks: PARENT/<key>,
older keys under PARENT removed (tests/mutation_check.py,
tests/shim_drift_check.py)."""
import hashlib
import os
import shutil


def kept_scratch_folder(parent, inputs):
    """PARENT/<first 12 hex digits of the SHA-1 of the inputs' bytes>."""
    h = hashlib.sha1()
    for path in inputs:
        with open(path, 'rb') as f:
            h.update(f.read())
    parent = os.path.abspath(parent)
    key = h.hexdigest()[:12]
    if os.path.isdir(parent):
        for old in os.listdir(parent):
            if old != key:
                shutil.rmtree(os.path.join(parent, old), ignore_errors=True)
    return os.path.join(parent, key)
