#!/bin/bash -eu
# SPDX-License-Identifier: GPL-2.0-only
# ClusterFuzzLite build: the same script OSS-Fuzz runs.
exec "$SRC/dmasim/fuzz/oss-fuzz/build.sh"
