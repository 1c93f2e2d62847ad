# a site setup file saved on Windows
module load cuda/12
