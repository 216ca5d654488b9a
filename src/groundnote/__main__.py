from groundnote.surfaces.cli.entry import main

main()
