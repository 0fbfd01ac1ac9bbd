import os
from .ok import fine


def good():
    pass


def bad(:
    pass


class After:
    def m(self):
        pass
