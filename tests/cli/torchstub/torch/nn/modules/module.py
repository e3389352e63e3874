"""nn.Module's hook machinery, as in PyTorch 2.x's torch/nn/modules/module.py (_call_impl)."""
import os
import warnings
from collections import OrderedDict

_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_next_id = [0]


class RemovableHandle(object):
    def __init__(self, *dicts):
        _next_id[0] += 1
        self.id = _next_id[0]
        self.dicts = dicts

    def remove(self):
        for d in self.dicts:
            d.pop(self.id, None)


def register_module_forward_pre_hook(hook):
    h = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[h.id] = hook
    return h


if os.environ.get("TORCHSTUB_NO_ALWAYS_CALL") == "1":

    def register_module_forward_hook(hook):
        h = RemovableHandle(_global_forward_hooks)
        _global_forward_hooks[h.id] = hook
        return h

else:

    def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
        h = RemovableHandle(_global_forward_hooks, _global_forward_hooks_always_called)
        _global_forward_hooks[h.id] = hook
        if always_call:
            _global_forward_hooks_always_called[h.id] = True
        return h


class Module(object):
    def __init__(self):
        object.__setattr__(self, "_modules", OrderedDict())

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                sub = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, sub, remove_duplicate)

    def forward(self, *args):
        raise NotImplementedError

    def __call__(self, *args):
        if not (_global_forward_pre_hooks or _global_forward_hooks):
            return self.forward(*args)
        result = None
        called = set()
        try:
            for hook in list(_global_forward_pre_hooks.values()):
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
            result = self.forward(*args)
            for hid, hook in list(_global_forward_hooks.items()):
                if hid in _global_forward_hooks_always_called:
                    called.add(hid)
                r = hook(self, args, result)
                if r is not None:
                    result = r
            return result
        except Exception:
            for hid, hook in list(_global_forward_hooks.items()):
                if hid in _global_forward_hooks_always_called and hid not in called:
                    try:
                        r = hook(self, args, result)
                        if r is not None:
                            result = r
                    except Exception as e:
                        warnings.warn("global module forward hook with always_call=True raised: %s" % e)
            raise
