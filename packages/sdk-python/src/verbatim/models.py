"""The request, response and webhook models of the v2 API, generated from the contract."""

from .generated.models import *  # noqa: F403
from .generated.models import __all__ as __all__
