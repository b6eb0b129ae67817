// libqrencode (Debian: libqrencode-dev).
#include <qrencode.h>
