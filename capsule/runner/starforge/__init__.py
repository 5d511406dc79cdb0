"""StarForge job-side helpers shipped inside the Job Capsule (``runner.pyz``).

User code imports ``starforge.report``; the runner puts runner.pyz on PYTHONPATH so that works in any
image without installing anything.
"""
