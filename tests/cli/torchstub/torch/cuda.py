synchronized = []  # one entry per real torch.cuda.synchronize() call (it would create a CUDA context)


def synchronize(device=None):
    synchronized.append(device)
