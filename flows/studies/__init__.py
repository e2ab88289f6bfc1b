"""Human-evaluation studies: five evaluation pages over one campaign frame."""
