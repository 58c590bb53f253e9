"""survey: evidence-backed, structure-only schema documentation for agent session stores.

Data flows one way: corpus -> inventory -> walk -> census -> evidence -> snapshot -> pages.
"""

__version__ = "0.1.0"
