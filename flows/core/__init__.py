"""The core every layer may import (docs/architecture.md)."""
