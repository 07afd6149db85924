from vmscale.cli import main

raise SystemExit(main())
