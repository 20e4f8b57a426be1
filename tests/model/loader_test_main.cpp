#include <QtTest>

#include "loader_test.h"

QTEST_APPLESS_MAIN(ModelLoaderTest)
