#include "gpucost/cli/app.hpp"

int main(int argc, char** argv) { return gpucost::cli::run(argc, argv); }
