"""torch.cuda's lazy initialisation, as in PyTorch 2.x: _lazy_call queues a callable until
_lazy_init() (the first CUDA use) runs the queue; a callable that raises there fails the
program (DeferredCudaCallError)."""
synchronized = []  # one entry per real torch.cuda.synchronize() call (it would create a CUDA context)
_initialized = [False]
_queued_calls = []


class DeferredCudaCallError(Exception):
    pass


def synchronize(device=None):
    _lazy_init()
    synchronized.append(device)


def is_initialized():
    return _initialized[0]


def _lazy_call(callable, **kwargs):
    if is_initialized():
        callable()
    else:
        _queued_calls.append(callable)


def _lazy_init():
    if _initialized[0]:
        return
    _initialized[0] = True
    for c in _queued_calls:
        try:
            c()
        except Exception as e:
            raise DeferredCudaCallError("CUDA call failed lazily at initialization with error: %s" % e) from e
