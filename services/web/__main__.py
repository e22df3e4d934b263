"""`python -m services.web`: write the built page's manifest (`make web` runs it after npm);
`python -m services.web --check`: say whether the shipped page is the build of these sources."""

import sys

from .assets import main

sys.exit(main(sys.argv))
