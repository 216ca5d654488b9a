from tests.core.conftest import decide

__all__ = ["decide"]
