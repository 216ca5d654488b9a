from groundnote.surfaces.cli.main import main

main()
