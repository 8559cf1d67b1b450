"""A plugin module raising a BaseException of its own, and one raising GeneratorExit."""


class Odd(BaseException):
    """Neither an Exception nor one of Python's own BaseExceptions."""


raise Odd("odd")
