"""The mirror as the front-ends see it: what the messages show per person and month, the
findings and patterns with their evidence, and the owner's word on each (service.py)."""
