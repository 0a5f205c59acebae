from pgpage.cli.main import run

run()
