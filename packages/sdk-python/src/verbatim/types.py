"""The keyword arguments of the client methods, generated from the contract: one ``TypedDict`` per request body
(``TranscriptRequestOptions``, the fields of ``transcripts.video`` beside its ``video``) and per operation's query
(``GetLibraryTranscriptQuery``). Type your own wrappers with them: ``**options: Unpack[TranscriptRequestOptions]``.
"""

from .generated.requests import *  # noqa: F403
from .generated.requests import __all__ as __all__
