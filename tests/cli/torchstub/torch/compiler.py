_compiling = [False]


def is_compiling():
    return _compiling[0]
