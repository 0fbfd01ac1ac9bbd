"""Service module: relative imports and classes."""
from __future__ import annotations

import os
import os.path as osp, sys
from . import models
from .models import User, Group as G
from ..core.db import (
    session,
    engine,
)
from typing import *
from .. import config
from .import sibling

try:
    import ujson as json
except ImportError:  # a comment: import nowhere
    import json

if TYPE_CHECKING:
    from .types import Token

VERSION = "1.0"
RETRIES: int = 3
a = b = 0
x, y = 1, 2
os.environ["X"] = "1"
message = "import nothing from here"
important = True


def helper(arg):
    from .lazy import thing
    return thing(arg)


async def fetch():
    pass


@dataclass
class Service(Base):
    name = "svc"

    def __init__(self):
        self.ready = False

    @property
    def status(self):
        return self.ready

    @status.setter
    def status(self, value):
        self.ready = value

    async def run(self):
        pass

    class Config:
        pass


class Empty:
    ...


def helper():
    pass
