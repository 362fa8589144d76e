import sys

from sealscope.main import main

if __name__ == "__main__":
    sys.exit(main())
