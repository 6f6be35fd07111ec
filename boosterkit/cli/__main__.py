from boosterkit.cli.app import main

main()
