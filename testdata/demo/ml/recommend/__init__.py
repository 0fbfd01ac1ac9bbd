"""Product recommendations for the demo shop."""

from .model import recommend

__all__ = ["recommend"]
