"""Pure types shared by every subsystem: ids and refs, errors, guidance, the clock.

Nothing in here imports anything else of the project.
"""
