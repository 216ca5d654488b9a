"""The command line: admin commands and one command per capability."""
