import sys

from sealscope.main import main

sys.exit(main())
