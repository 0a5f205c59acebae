"""pgpage: offline, page-image forensic analyser for PostgreSQL data files."""
__version__ = "0.1.0"
