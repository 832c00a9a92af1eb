/* placeholder until the pipeline lands */
int main(void) { return 1; }
