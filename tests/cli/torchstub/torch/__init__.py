"""Stand-in torch for gpudiag's CPU tier (see ../README.md)."""
import os as _os
import threading as _threading

if _os.environ.get("TORCHSTUB_BROKEN") == "1":
    raise ImportError("torchstub: broken on purpose")

__version__ = "2.99.0+stub"

from . import _C  # noqa: E402
from . import compiler  # noqa: E402
from . import cuda  # noqa: E402
from . import nn  # noqa: E402
from . import autograd  # noqa: E402
from .autograd import profiler as _profiler  # noqa: E402

_seq = [0]
_opid = [0]


def ops_call(name):
    """An operator: an NVTX range while the NVTX profiler state is on in this thread."""
    st = autograd._tls_state()
    on = st is not None and st.state == autograd.ProfilerState.NVTX
    if on:
        _seq[0] += 1
        _opid[0] += 1
        _C._nvtx.rangePushA("%s, seq = %d, op_id = %d" % (name, _seq[0], _opid[0]))
        _C._nvtx.rangePop()
    return on
