#!/usr/bin/env bash
# The accuracy suite's scorer (tests/gpu/accuracy/score.py) on hand-made reports: every scoring
# path of the trace and the light mode, so the GPU-tier score cannot silently change meaning.
set -u
cd "$(dirname "$0")/../.."
python3 tests/gpu/accuracy/score.py --self-test
